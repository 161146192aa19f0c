package torrent

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A Summary is what torrent tools show of a torrent, in a form for
// programs: 'b14fs torrent show --json' prints one (see WriteSummaryJSON).
// Its JSON form, the names in the tags below and the forms of their
// values, is a stable format: fields may be added, none renamed, removed or
// given another meaning.
type Summary struct {
	Name       Text   `json:"name"`
	Version    string `json:"version"`                // "v1", "v2" or "hybrid"
	InfoHashV1 string `json:"info_hash_v1,omitempty"` // hexadecimal SHA-1; left out when the torrent has no v1 metadata
	InfoHashV2 string `json:"info_hash_v2,omitempty"` // hexadecimal SHA-256; left out when the torrent has no v2 metadata
	Magnet     string `json:"magnet"`                 // MetaInfo.Magnet
	// Trackers are the announce URLs by tier, as BEP 12 says a client
	// uses them (MetaInfo.Trackers); never null, as the other lists.
	Trackers     [][]Text `json:"trackers"`
	WebSeeds     []Text   `json:"web_seeds"`               // BEP 19
	HTTPSeeds    []Text   `json:"http_seeds"`              // BEP 17
	Private      bool     `json:"private"`                 // BEP 27
	CreationDate *int64   `json:"creation_date,omitempty"` // seconds since 1970 UTC; left out when absent
	CreatedBy    *Text    `json:"created_by,omitempty"`    // left out when absent
	Comment      *Text    `json:"comment,omitempty"`       // left out when absent
	PieceLength  int64    `json:"piece_length"`
	Pieces       int64    `json:"pieces"`     // Info.NumPieces
	TotalSize    int64    `json:"total_size"` // padding files left out
	// Files are the torrent's files in order (Info.Walk), padding files
	// included. It is the last field, so that WriteSummaryJSON can write
	// the files one at a time after the others.
	Files []SummaryFile `json:"files"`
}

// A SummaryFile is one file of a Summary.
type SummaryFile struct {
	// Path is where a client stores the file (FileEntry.LocalPath), or,
	// when a client would not store it, its path as the torrent has it,
	// joined by '/'.
	Path         Text   `json:"path"`
	PathElements []Text `json:"path_elements"` // the path as the torrent has it, the torrent's name first
	Length       int64  `json:"length"`
	Pad          bool   `json:"pad,omitempty"`  // a padding file (BEP 47); left out when false
	Attr         string `json:"attr,omitempty"` // "attr" (BEP 47); left out when empty
}

// Text is a string of a torrent, whose bytes need not be UTF-8. Its JSON
// form is the string when it is valid UTF-8, and "base64:" and its bytes
// in standard base64 when it is not, or when it starts with "base64:"
// itself: the form the bencode codec writes strings in.
type Text string

// MarshalJSON returns the JSON form of t.
func (t Text) MarshalJSON() ([]byte, error) {
	s := string(t)
	if !utf8.ValidString(s) || strings.HasPrefix(s, "base64:") {
		s = "base64:" + base64.StdEncoding.EncodeToString([]byte(s))
	}
	return json.Marshal(s)
}

// Summarize returns the summary of m with Files empty: a torrent may list
// millions of files, and m (read by ParseLazy) need not hold them decoded.
// Append SummarizeFile of each file of m.Info.Walk to fill it, or write
// the whole summary with WriteSummaryJSON, which writes the files one at a
// time.
func Summarize(m *MetaInfo) *Summary {
	in := &m.Info
	v1, v2 := m.InfoHashes()
	s := &Summary{
		Name: Text(in.Name), InfoHashV1: v1, InfoHashV2: v2, Magnet: m.Magnet(),
		Trackers: [][]Text{}, WebSeeds: texts(m.WebSeeds()), HTTPSeeds: texts(m.HTTPSeeds()), Private: in.Private,
		PieceLength: in.PieceLength, Pieces: in.NumPieces(), TotalSize: in.TotalLength(), Files: []SummaryFile{},
	}
	switch {
	case in.IsHybrid():
		s.Version = "hybrid"
	case in.HasV2():
		s.Version = "v2"
	default:
		s.Version = "v1"
	}
	for _, tier := range m.Trackers() {
		s.Trackers = append(s.Trackers, texts(tier))
	}
	if m.CreationDate != 0 {
		date := m.CreationDate
		s.CreationDate = &date
	}
	if m.CreatedBy != "" {
		by := Text(m.CreatedBy)
		s.CreatedBy = &by
	}
	if m.Comment != "" {
		comment := Text(m.Comment)
		s.Comment = &comment
	}
	return s
}

// texts returns ss as Texts, an empty list for none.
func texts(ss []string) []Text {
	t := make([]Text, len(ss))
	for i, s := range ss {
		t[i] = Text(s)
	}
	return t
}

// SummarizeFile returns the summary of the file f.
func SummarizeFile(f *FileEntry) SummaryFile {
	path, ok := f.LocalPath()
	if !ok {
		path = strings.Join(f.Path, "/")
	}
	return SummaryFile{Path: Text(path), PathElements: texts(f.Path), Length: f.Length, Pad: f.Pad, Attr: f.Attr}
}

// WriteSummaryJSON writes the summary of m, files and all, as JSON to w:
// the bytes an encoding/json Encoder indenting by two spaces, with HTML
// left unescaped, writes of it, written one file at a time, so that the
// memory it takes does not grow with the number of files.
func WriteSummaryJSON(w io.Writer, m *MetaInfo) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Summarize(m)); err != nil {
		return err
	}
	// Files is empty, and last: the files go in its place.
	head, ok := bytes.CutSuffix(buf.Bytes(), []byte("[]\n}\n"))
	if !ok {
		return fmt.Errorf("torrent: the JSON form of a Summary does not end with its files: %q", buf.Bytes())
	}
	bw.Write(head)
	// A file, at the depth of an item of "files".
	enc = json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	sep := "[\n    "
	for f := range m.Info.Walk() {
		buf.Reset()
		if err := enc.Encode(SummarizeFile(&f)); err != nil {
			return err
		}
		bw.WriteString(sep)
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		sep = ",\n    "
	}
	if sep[0] == '[' {
		bw.WriteString("[]\n}\n")
	} else {
		bw.WriteString("\n  ]\n}\n")
	}
	return bw.Flush()
}
