package rpc

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/b14fs/b14fs/core"
	"github.com/b14fs/b14fs/plugins/rpc/internal/pb"
)

// ErrProtocolVersion is matched by the error of a plugin that speaks another
// version of the plugin protocol than the host.
var ErrProtocolVersion = errors.New("wrong protocol version")

// ProtocolVersion is the version of the plugin protocol the host and Serve
// speak, which a plugin announces in its handshake.
const ProtocolVersion = 1

// A Plugin describes a plugin executable that Discover took, as Inspect
// found it.
type Plugin struct {
	Name     string // its codec
	Path     string // its executable, fit to print
	SHA256   []byte // the SHA-256 sum of its executable; nil if unreadable
	Pinned   bool   // the host has a pin for it (see WithPins)
	Protocol int    // the protocol version it speaks; 0 if it did not start
	Suffix   string // the file suffix it suggests
	// Options are the options its codec takes, as it lists them, fit to
	// print; nil if it lists none or serves no Info service.
	Options []core.OptionDoc
	Err     error // why it cannot be used (it did not start, its pin does not match), or nil
}

// Inspect starts every plugin that Discover took, as the first use of its
// codec would, and describes each, in the order of their names.
func (h *Host) Inspect() []Plugin {
	list := make([]Plugin, len(h.plugins))
	var wg sync.WaitGroup
	for i, p := range h.plugins {
		wg.Go(func() {
			_, pinned := h.pins[p.name]
			info := Plugin{Name: p.name, Path: cleanText(p.path, 256), Pinned: pinned}
			info.SHA256, _ = Sum(p.path)
			if _, info.Err = p.codec(); info.Err == nil {
				info.Protocol = p.run.Load().NegotiatedVersion()
				info.Suffix = p.suffix
				info.Options, info.Err = p.options()
			}
			list[i] = info
		})
	}
	wg.Wait()
	return list
}

// Sum returns the SHA-256 sum of the file at path: what a pin of the
// plugin executable there must hold.
func Sum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// maxOptions caps how many options of a plugin Inspect lists.
const maxOptions = 64

// options asks the running plugin for the options its codec takes; a
// plugin without the Info service takes none it can tell.
func (p *process) options() ([]core.OptionDoc, error) {
	c, ok := p.client.(clients)
	if !ok {
		return nil, nil
	}
	ctx, cancel := p.host.callContext()
	defer cancel()
	reply, err := c.info.Options(ctx, &pb.OptionsRequest{})
	if status.Code(err) == codes.Unimplemented {
		return nil, nil
	}
	if err != nil {
		return nil, p.callError(ctx, p.host.timeout, err)
	}
	var docs []core.OptionDoc
	for _, o := range reply.GetOptions()[:min(len(reply.GetOptions()), maxOptions)] {
		doc := core.OptionDoc{Key: cleanText(o.GetKey(), 64), Usage: cleanText(o.GetUsage(), 256)}
		for _, v := range o.GetValues()[:min(len(o.GetValues()), maxOptions)] {
			doc.Values = append(doc.Values, cleanText(v, 64))
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// clients are the gRPC clients of a plugin's services.
type clients struct {
	pb.CodecClient
	info pb.InfoClient
}

// infoServer serves the Info service of a plugin's codec.
type infoServer struct {
	pb.UnimplementedInfoServer
	codec core.Codec
}

func (s infoServer) Options(context.Context, *pb.OptionsRequest) (*pb.OptionsReply, error) {
	reply := &pb.OptionsReply{}
	if ol, ok := s.codec.(core.OptionLister); ok {
		for _, o := range ol.OptionDocs() {
			reply.Options = append(reply.Options, &pb.OptionDoc{Key: o.Key, Values: o.Values, Usage: o.Usage})
		}
	}
	return reply, nil
}
