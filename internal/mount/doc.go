// Package mount serves an afero.Fs through FUSE: b14fs mounts an fsx file
// system with it so that every program sees a directory's encoded files
// decoded, and, when mounted writable, stores what they write encoded.
//
// The rules it follows (coherence, symbolic links, what a crash can leave)
// are in docs/mount.md. FUSE mounts are made on Linux only: elsewhere the
// package is empty.
package mount
