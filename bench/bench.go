// Package bench compares b14fs's codecs with other Go implementations.
package bench
