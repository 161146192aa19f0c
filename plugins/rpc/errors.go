package rpc

import (
	"errors"
	"fmt"

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

// remoteError is the cause of an error that crossed from a plugin.
type remoteError string

func (e remoteError) Error() string { return string(e) }

// fromWire turns an error message from the plugin at path back into an error
// of the kind it was.
func fromWire(e *pb.Error, path string) error {
	switch e.Kind {
	case pb.Error_DATA:
		return &core.DataError{Codec: e.Codec, Offset: e.Offset, Err: remoteError(e.Message)}
	case pb.Error_UNKNOWN_OPTION:
		return &core.OptionError{Codec: e.Codec, Key: e.Key, Value: e.Value, Err: core.ErrUnknownOption}
	case pb.Error_BAD_OPTION_VALUE:
		return &core.OptionError{Codec: e.Codec, Key: e.Key, Value: e.Value, Err: fmt.Errorf("%w: %s", core.ErrBadOptionValue, e.Message)}
	}
	return fmt.Errorf("plugin %s: %s", path, e.Message)
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
