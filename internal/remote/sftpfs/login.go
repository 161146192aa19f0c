package sftpfs

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"
)

// hostKeys returns the check of the server's host key cfg asks for, and
// the host key algorithms to ask the server for: those of the keys
// known_hosts holds for cfg.Addr (ssh-rsa keys as rsa-sha2-512 and
// rsa-sha2-256, @cert-authority lines as certificates), so that a server
// with keys of several types shows the one known_hosts knows. For a host
// known_hosts does not hold, they are the plain keys (no certificates),
// whose check then says so; with the check turned off, the client's
// defaults (nil).
func hostKeys(cfg Config) (ssh.HostKeyCallback, []string, error) {
	if cfg.InsecureIgnoreHostKey {
		return ssh.InsecureIgnoreHostKey(), nil, nil
	}
	files := cfg.KnownHosts
	if len(files) == 0 {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil, fmt.Errorf("sftp: no known_hosts file: %w", err)
		}
		files = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	db, err := knownhosts.NewDB(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("sftp: known_hosts: %w (add the server's key with ssh-keyscan, or pass --sftp-insecure-ignore-host-key)", err)
	}
	algorithms := db.HostKeyAlgorithms(cfg.Addr)
	if len(algorithms) == 0 {
		algorithms = slices.DeleteFunc(ssh.SupportedAlgorithms().HostKeys, func(a string) bool {
			return strings.Contains(a, "-cert-")
		})
	}
	check := db.HostKeyCallback()
	return func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := check(host, remote, key)
		if _, cert := key.(*ssh.Certificate); cert && err != nil {
			err = fmt.Errorf("the server's host certificate is not signed by an authority known_hosts holds for it, or not valid for it: %w", err)
		}
		return err
	}, algorithms, nil
}

// explainHostKey says what to do about a host key known_hosts rejected,
// or about a server that has no key of the types known_hosts holds for it.
func explainHostKey(err error) error {
	var ne *ssh.AlgorithmNegotiationError
	if errors.As(err, &ne) && ne.What == "host key" {
		return fmt.Errorf("the server has no host key of the types known_hosts holds for it (%s; it offers %s): its keys may have changed, or someone may be in between: %w",
			strings.Join(ne.SupportedAlgorithms, ", "), strings.Join(ne.RequestedAlgorithms, ", "), err)
	}
	var ke *xknownhosts.KeyError
	if !errors.As(err, &ke) {
		return err
	}
	if len(ke.Want) == 0 {
		return fmt.Errorf("the server's host key is not in known_hosts (add it: ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts, after checking it; or pass --sftp-insecure-ignore-host-key): %w", err)
	}
	return fmt.Errorf("the server's host key does NOT match the one in %s:%d: someone may be in between, or the key changed: %w", ke.Want[0].Filename, ke.Want[0].Line, err)
}

// keys are the keys to log in with: those of the ssh-agent, asked at each
// login (it may have restarted, with other keys, since the last one), then
// those of the key files, read once.
type keys struct {
	agentSock string // $SSH_AUTH_SOCK when dialed, if set
	files     []ssh.Signer
}

// errNoKey is the error of a login with no key to offer.
var errNoKey = errors.New("sftp: no key to log in with: start ssh-agent with your key, or give --sftp-key FILE")

// loadKeys reads the key files to log in with: files, or the default ones
// of ~/.ssh that exist when files is empty.
func loadKeys(files []string) (*keys, error) {
	k := &keys{agentSock: os.Getenv("SSH_AUTH_SOCK")}
	explicit := len(files) > 0
	if !explicit {
		if home, err := os.UserHomeDir(); err == nil {
			for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
				files = append(files, filepath.Join(home, ".ssh", name))
			}
		}
	}
	for _, file := range files {
		pem, err := os.ReadFile(file)
		if err != nil {
			if explicit {
				return nil, fmt.Errorf("sftp: key file: %w", err)
			}
			continue
		}
		s, err := ssh.ParsePrivateKey(pem)
		var missing *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &missing) && !explicit:
			continue // the agent may hold it
		case errors.As(err, &missing):
			return nil, fmt.Errorf("sftp: key file %s needs a passphrase: add it to ssh-agent instead", file)
		case err != nil:
			return nil, fmt.Errorf("sftp: key file %s: %w", file, err)
		}
		k.files = append(k.files, s)
	}
	if len(k.files) == 0 && k.agentSock == "" {
		return nil, errNoKey
	}
	return k, nil
}

// login returns the ways to log in once, within timeout: the keys the agent
// holds now, then the key files'. Call done when the login is over: it
// closes the connection to the agent, which signs during the login.
func (k *keys) login(timeout time.Duration) (methods []ssh.AuthMethod, done func(), err error) {
	var signers []ssh.Signer
	done = func() {}
	if k.agentSock != "" {
		if c, err := net.DialTimeout("unix", k.agentSock, timeout); err == nil {
			c.SetDeadline(time.Now().Add(timeout))
			if s, err := agent.NewClient(c).Signers(); err == nil {
				signers = append(signers, s...)
			}
			done = func() { c.Close() }
		}
	}
	signers = append(signers, k.files...)
	if len(signers) == 0 {
		done()
		return nil, nil, errNoKey
	}
	return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, done, nil
}
