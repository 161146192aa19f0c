// Package python holds b14fs-plugin-pyxor, a b14fs codec plugin written in
// Python with grpcio, to show that the plugin protocol is not Go's alone;
// its test runs the codec contract suite on it through a b14fs host.
package python
