// Package rpc runs codecs out of process with github.com/hashicorp/go-plugin
// over gRPC: third parties ship a codec as an executable, and b14fs streams
// through it as if it were built in.
//
// A plugin is an executable named b14fs-plugin-NAME whose main calls Serve
// with a core.Codec named NAME:
//
//	func main() { rpc.Serve(rot13.Codec{}) }
//
// The host side, Discover, finds plugins in a list of directories and
// registers a codec for each in a core.Registry; Host.Skipped explains the
// files it did not take and Host.Inspect describes the plugins. A plugin
// process starts the first time its codec is used, gets no standard input
// and only the variables of the host's environment it needs (EnvPass names
// more), logs to the host's standard error (at the level of EnvLog), and is
// killed by Host.Close or when the host dies. Each stream is a gRPC call for
// its start and its outcome, and its bytes flow over a Unix socket
// connection of their own beside it (in frames on the call, with gRPC's
// flow control, to a plugin that offers no such connection); data errors
// come back as *core.DataError values and option errors as
// *core.OptionError values, so a remote codec behaves like a local one. A
// plugin that crashes makes the stream fail with an error naming it; one
// that stalls, with a timeout error (WithTimeout, $B14FS_PLUGIN_TIMEOUT).
//
// The host trusts nothing a plugin says that it can check: errors name the
// plugin's codec whatever the plugin claims, offsets stay within the data
// sent, and every text from a plugin (messages, log lines) is cut short and
// has its control characters escaped before anyone sees it. A plugin runs in
// a process group of its own, killed with it; a pinned plugin (WithPins)
// runs from the very bytes whose sum was checked.
package rpc

import "github.com/hashicorp/go-plugin"

// handshake keeps b14fs from running programs that are not its plugins, and
// plugins from serving hosts of another protocol version.
var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "B14FS_PLUGIN",
	MagicCookieValue: "b14fs-codec-plugin-v1",
}

// pluginName is the name the codec service is dispensed under.
const pluginName = "codec"

// PluginPrefix starts the file name of every plugin executable.
const PluginPrefix = "b14fs-plugin-"

// frameSize bounds the data in one gRPC message, well under gRPC's 4 MiB
// default limit.
const frameSize = 256 << 10
