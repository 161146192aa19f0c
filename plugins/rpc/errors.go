package rpc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// toWire turns an error of the plugin's codec into its message.
func toWire(err error) *pb.Error {
	var de *core.DataError
	var oe *core.OptionError
	switch {
	case errors.As(err, &de):
		return &pb.Error{Kind: pb.Error_DATA, Codec: de.Codec, Offset: de.Offset, Message: de.Err.Error()}
	case errors.As(err, &oe):
		kind := pb.Error_BAD_OPTION_VALUE
		if errors.Is(oe.Err, core.ErrUnknownOption) {
			kind = pb.Error_UNKNOWN_OPTION
		}
		return &pb.Error{Kind: kind, Codec: oe.Codec, Key: oe.Key, Value: oe.Value, Message: oe.Err.Error()}
	}
	return &pb.Error{Kind: pb.Error_OTHER, Message: err.Error()}
}

// remoteError is the cause of an error that crossed from a plugin, already
// cleaned.
type remoteError string

func (e remoteError) Error() string { return string(e) }

// A pluginError is an error of a plugin's process, connection or protocol.
// Its text may come from the plugin: it is cleaned when it is printed.
// errExited is wrapped by the error of a stream whose plugin process ended:
// crashed, killed, or exited in the middle of it.
var errExited = errors.New("exited")

type pluginError struct {
	path string
	err  error
}

func (e *pluginError) Error() string {
	return "plugin " + e.path + ": " + cleanText(e.err.Error(), 8*maxMessage)
}

func (e *pluginError) Unwrap() error { return e.err }

// A timeoutError ends a stream or a call whose plugin made no progress for
// the host's time limit.
type timeoutError struct{ limit time.Duration }

func (e timeoutError) Error() string {
	return fmt.Sprintf("timed out: no progress for %v (the limit is set by %s)", e.limit, EnvTimeout)
}

// Timeout reports true, as net.Error's method does.
func (timeoutError) Timeout() bool { return true }

// Is makes errors.Is(err, os.ErrDeadlineExceeded) hold.
func (timeoutError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// fromWire turns an error that the plugin sent for codec c back into an
// error of the kind it was, believing nothing of it that the host can check:
// the codec is always c; a data error's offset must lie between 0 and sent,
// the number of bytes the plugin was sent (or, for a call that sends no data,
// sent < 0, there is no data error); an option error must be about one of
// opts, the options the plugin was given, and names it as given; and every
// message is cleaned.
func (c *remoteCodec) fromWire(e *pb.Error, opts core.Options, sent int64) error {
	msg := cleanText(e.GetMessage(), maxMessage)
	switch kind := e.GetKind(); {
	case kind == pb.Error_DATA && sent >= 0:
		off := e.GetOffset()
		if off < 0 || off > sent {
			off = min(max(off, 0), sent)
			msg += fmt.Sprintf(" (the plugin gave byte offset %d, outside the %d bytes it was sent)", e.GetOffset(), sent)
		}
		return &core.DataError{Codec: c.name, Offset: off, Err: remoteError(msg)}
	case kind == pb.Error_UNKNOWN_OPTION || kind == pb.Error_BAD_OPTION_VALUE:
		for _, o := range opts {
			if o.Key != e.GetKey() {
				continue
			}
			if kind == pb.Error_UNKNOWN_OPTION {
				return &core.OptionError{Codec: c.name, Key: o.Key, Value: o.Value, Err: core.ErrUnknownOption}
			}
			// The message of an error that wraps ErrBadOptionValue may begin with its text.
			if msg == core.ErrBadOptionValue.Error() {
				return &core.OptionError{Codec: c.name, Key: o.Key, Value: o.Value, Err: core.ErrBadOptionValue}
			}
			msg = strings.TrimPrefix(msg, core.ErrBadOptionValue.Error()+": ")
			return &core.OptionError{Codec: c.name, Key: o.Key, Value: o.Value, Err: fmt.Errorf("%w: %s", core.ErrBadOptionValue, msg)}
		}
		return &pluginError{c.proc.path, fmt.Errorf("rejected its options over option %s, which it was not given: %s", cleanText(strconv.Quote(e.GetKey()), 80), msg)}
	}
	return &pluginError{c.proc.path, remoteError(msg)}
}

func wireOptions(opts core.Options) []*pb.Option {
	out := make([]*pb.Option, len(opts))
	for i, o := range opts {
		out[i] = &pb.Option{Key: o.Key, Value: o.Value}
	}
	return out
}

func coreOptions(opts []*pb.Option) core.Options {
	out := make(core.Options, len(opts))
	for i, o := range opts {
		out[i] = core.Option{Key: o.GetKey(), Value: o.GetValue()}
	}
	return out
}
