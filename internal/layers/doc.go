// Package layers holds the test that keeps the project's import arrows
// pointing down: cmd above fsx above transform above the plugins above core,
// with core on the standard library alone and no plugin importing another.
package layers
