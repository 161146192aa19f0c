package torrent

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// info returns the info dictionary's bytes: InfoBytes, or the encoding of
// Info when they are not set.
func (m *MetaInfo) info() []byte {
	if len(m.InfoBytes) > 0 {
		return m.InfoBytes
	}
	b, _ := m.Info.Marshal()
	return b
}

// InfoHashV1 returns the v1 info-hash: the SHA-1 of the info dictionary's
// exact bytes, which identifies a v1 or hybrid torrent's swarm.
func (m *MetaInfo) InfoHashV1() [20]byte { return sha1.Sum(m.info()) }

// InfoHashV2 returns the v2 info-hash (BEP 52): the SHA-256 of the info
// dictionary's exact bytes, which identifies a v2 or hybrid torrent.
func (m *MetaInfo) InfoHashV2() [32]byte { return sha256.Sum256(m.info()) }

// InfoHashes returns the info-hashes in hex: the v1 one of a v1 or hybrid
// torrent, the v2 one of a v2 or hybrid torrent, and "" for the other.
func (m *MetaInfo) InfoHashes() (v1, v2 string) {
	if m.Info.HasV1() {
		h := m.InfoHashV1()
		v1 = hex.EncodeToString(h[:])
	}
	if m.Info.HasV2() {
		h := m.InfoHashV2()
		v2 = hex.EncodeToString(h[:])
	}
	return v1, v2
}

// Magnet returns the torrent's magnet link (BEP 9, with BEP 52's urn:btmh
// for v2): the info-hashes as "xt" ("urn:btih:" and 40 hex digits for v1;
// "urn:btmh:1220" and 64 hex digits, a SHA-256 multihash, for v2), the
// name as "dn", each tracker (tiers in order) as "tr", each web seed as
// "ws". Values are percent-encoded but for the unreserved characters of
// RFC 3986.
func (m *MetaInfo) Magnet() string {
	var b strings.Builder
	b.WriteString("magnet:?")
	v1, v2 := m.InfoHashes()
	sep := ""
	if v1 != "" {
		b.WriteString("xt=urn:btih:" + v1)
		sep = "&"
	}
	if v2 != "" {
		b.WriteString(sep + "xt=urn:btmh:1220" + v2)
	}
	param := func(key, value string) {
		b.WriteString("&" + key + "=")
		escape(&b, value)
	}
	if m.Info.Name != "" {
		param("dn", m.Info.Name)
	}
	for _, tier := range m.Trackers() {
		for _, u := range tier {
			param("tr", u)
		}
	}
	for _, u := range m.WebSeeds() {
		param("ws", u)
	}
	return b.String()
}

// escape writes s percent-encoded, but for RFC 3986's unreserved
// characters.
func escape(b *strings.Builder, s string) {
	const upper = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(upper[c>>4])
			b.WriteByte(upper[c&15])
		}
	}
}
