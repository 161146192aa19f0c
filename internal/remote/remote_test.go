package remote

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct{ loc, want string }{
		{"/local/dir", "/local/dir"},
		{"sftp://me@host/x", "sftp://me@host/x"},
		{"sftp://me:hunter2@host:2222/x", "sftp://me:xxxxx@host:2222/x"},
		{"s3://AKID:secret@bucket/p", "s3://xxxxx@bucket/p"},
		{"s3://bucket/p", "s3://bucket/p"},
	}
	for _, tt := range tests {
		if got := Redact(tt.loc); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.loc, got, tt.want)
		}
	}
}

// TestOpenRefuses checks the locations Open refuses before connecting,
// and that the refusal never shows a secret.
func TestOpenRefuses(t *testing.T) {
	tests := []struct{ loc, want string }{
		{"sftp://me:hunter2@127.0.0.1:1/x", "passwords are not taken"},
		{"sftp:///x", "no host"},
		{"s3://AKID:hunter2@bucket/x", "credentials are not taken"},
		{"s3:///x", "no bucket"},
		{"s3://bucket/x?versionId=1", "no query"},
		{"ftp://host/x", "unknown scheme"},
	}
	for _, tt := range tests {
		_, _, err := Open(tt.loc, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q): %v, want an error saying %q without the secret", tt.loc, err, tt.want)
		}
	}
	if _, _, _, err := OpenFile("s3://bucket/dir/", Options{}); err == nil || !strings.Contains(err.Error(), "names no file") {
		t.Errorf("OpenFile of a directory URL: %v", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		in       string
		host     string
		insecure bool
		ok       bool
	}{
		{"http://127.0.0.1:8333", "127.0.0.1:8333", true, true},
		{"https://s3.example", "s3.example", false, true},
		{"s3.example:9000", "s3.example:9000", false, true},
		{"ftp://x", "", false, false},
		{"http://u:p@x", "", false, false},
		{"http://x/path", "", false, false},
	}
	for _, tt := range tests {
		host, insecure, err := parseEndpoint(tt.in)
		if (err == nil) != tt.ok || host != tt.host || insecure != tt.insecure {
			t.Errorf("parseEndpoint(%q) = %q, %v, %v", tt.in, host, insecure, err)
		}
	}
}
