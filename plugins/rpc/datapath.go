package rpc

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// The data path: a plugin built on Serve accepts a Unix stream connection
// for each stream's data, beside its gRPC connection, and the bytes flow
// over it both ways with no framing, while the gRPC call of the stream
// carries only its start and its outcome. The kernel's socket buffers bound
// what is in flight, as gRPC's flow control does for frames. A plugin that
// announces no data socket (one not built on Serve, in another language)
// gets its data in frames on the call itself.

// dataToken names a stream's data connection: the host writes it first on
// the connection and names it in the stream's Start frame.
type dataToken [16]byte

// dataBuffer is the size of the socket buffers asked for on a data
// connection (the system may grant less): with room for several pieces of
// frameSize in flight, each side runs ahead of the other by that much
// before it waits, and wakes the other less often.
const dataBuffer = 1 << 20

// tune sizes the socket buffers of a data connection.
func tune(c *net.UnixConn) {
	c.SetWriteBuffer(dataBuffer)
	c.SetReadBuffer(dataBuffer)
}

// pieceSize is the most a data connection is read or written in at once.
const pieceSize = frameSize

// pieces holds buffers of pieceSize bytes for the data connections, which
// each stream would otherwise allocate (and clear) anew.
var pieces = sync.Pool{New: func() any { return new([pieceSize]byte) }}

// writers holds the buffered writers of pieceSize bytes that write into
// data connections.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, pieceSize) }}

// dataWait bounds how long a plugin holds a data connection that no stream
// names, and how long a stream waits for its data connection.
const dataWait = 10 * time.Second

// dataAddress checks the data socket that a plugin announced: empty (it
// offers none) or a socket in the directory it was given, like its gRPC
// socket, and not a link to one elsewhere. The host never connects
// elsewhere.
func (c *client) dataAddress(addr string) (string, error) {
	if addr == "" || runtime.GOOS == "windows" {
		return "", nil
	}
	r := c.runner.Load()
	if r == nil || r.socketDir == "" || filepath.Dir(filepath.Clean(addr)) != filepath.Clean(r.socketDir) {
		return "", fmt.Errorf("announced data socket %s, not a socket in the directory it was given", cleanText(addr, 256))
	}
	if fi, err := os.Lstat(addr); err != nil || fi.Mode().Type() != fs.ModeSocket {
		return "", fmt.Errorf("announced data socket %s, which is no socket", cleanText(addr, 256))
	}
	return addr, nil
}

// dialData opens a data connection to the plugin's socket at addr and
// returns it with the token that names it.
func dialData(ctx context.Context, addr string) (*net.UnixConn, dataToken, error) {
	var tok dataToken
	rand.Read(tok[:])
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		return nil, tok, err
	}
	conn := c.(*net.UnixConn)
	tune(conn)
	if _, err := conn.Write(tok[:]); err != nil {
		conn.Close()
		return nil, tok, err
	}
	return conn, tok, nil
}

// dataServer is the plugin side of the data path: it accepts data
// connections and hands each to the stream whose Start frame names its
// token.
type dataServer struct {
	lis *net.UnixListener

	mu      sync.Mutex
	waiting map[dataToken]chan *net.UnixConn
}

// listenData makes the plugin's data socket in dir, the directory the host
// gave it, and accepts connections on it; it returns nil, offering no data
// path, when it cannot.
func listenData(dir string) *dataServer {
	if dir == "" || runtime.GOOS == "windows" {
		return nil
	}
	// A short name: go-plugin's own socket there leaves room for 17 bytes.
	var name [4]byte
	rand.Read(name[:])
	lis, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "data-"+hex.EncodeToString(name[:])), Net: "unix"})
	if err != nil {
		return nil
	}
	d := &dataServer{lis: lis, waiting: make(map[dataToken]chan *net.UnixConn)}
	go d.accept()
	return d
}

// address is the data socket's path, for the host.
func (d *dataServer) address() string {
	if d == nil {
		return ""
	}
	return d.lis.Addr().String()
}

// close stops accepting data connections and removes the socket.
func (d *dataServer) close() {
	if d != nil {
		d.lis.Close()
	}
}

func (d *dataServer) accept() {
	for {
		c, err := d.lis.AcceptUnix()
		if err != nil {
			return
		}
		go d.admit(c)
	}
}

// admit reads the token a connection begins with and hands the connection
// to the stream that names it, closing it if none does within dataWait.
func (d *dataServer) admit(c *net.UnixConn) {
	tune(c)
	var tok dataToken
	c.SetReadDeadline(time.Now().Add(dataWait))
	if _, err := io.ReadFull(c, tok[:]); err != nil {
		c.Close()
		return
	}
	c.SetReadDeadline(time.Time{})
	ch := d.slot(tok)
	t := time.NewTimer(dataWait)
	defer t.Stop()
	select {
	case ch <- c:
	case <-t.C:
		d.drop(tok, ch)
		c.Close()
	}
}

// take waits for the data connection named tok.
func (d *dataServer) take(ctx context.Context, tok dataToken) (*net.UnixConn, error) {
	if d == nil {
		return nil, errors.New("the stream names a data connection, but the plugin offers none")
	}
	ch := d.slot(tok)
	defer d.drop(tok, ch)
	t := time.NewTimer(dataWait)
	defer t.Stop()
	select {
	case c := <-ch:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errors.New("the stream's data connection did not come")
	}
}

// slot returns the channel where the connection named tok is handed over.
func (d *dataServer) slot(tok dataToken) chan *net.UnixConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch, ok := d.waiting[tok]
	if !ok {
		ch = make(chan *net.UnixConn)
		d.waiting[tok] = ch
	}
	return ch
}

// drop forgets the slot ch of tok, unless another has replaced it.
func (d *dataServer) drop(tok dataToken, ch chan *net.UnixConn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.waiting[tok] == ch {
		delete(d.waiting, tok)
	}
}
