package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/b14fs/b14fs/builtin"
	"github.com/b14fs/b14fs/internal/testing/shareddata"
	"github.com/b14fs/b14fs/torrent"
)

// validTorrents returns the torrents to compare with other tools: those of
// the repository's torrent/testdata, and the valid/ files of the shared
// corpus when it is there.
func validTorrents(t *testing.T) []string {
	files, err := filepath.Glob("../../torrent/testdata/*.torrent")
	if err != nil || len(files) == 0 {
		t.Fatalf("no torrents in torrent/testdata: %v", err)
	}
	if root := shareddata.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "bencode", "valid", "*"))
		files = append(files, shared...)
	} else {
		t.Logf("shared corpus not found (../shared/testdata or $%s): comparing torrent/testdata only", shareddata.EnvVar)
	}
	return files
}

// showJSON runs 'b14fs torrent show --json file' and decodes its output;
// ok is false when b14fs rejects the file.
func showJSON(t *testing.T, file string) (s torrent.Summary, ok bool) {
	var out, errOut bytes.Buffer
	code := run([]string{"torrent", "show", "--json", file}, stdio{nil, &out, &errOut}, builtin.Registry(), nil)
	if code == exitData {
		if !strings.Contains(errOut.String(), "byte offset") {
			t.Errorf("%s: rejected without a byte offset: %s", file, errOut.String())
		}
		return s, false
	}
	if code != exitOK {
		t.Fatalf("%s: exit %d: %s", file, code, errOut.String())
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s, true
}

// trShow is what transmission-show 3.00 prints of a torrent.
type trShow struct {
	fields   map[string]string // GENERAL: "Name", "Hash", "Created by", "Created on", "Comment", "Piece Count", ...
	trackers [][]string
	webseeds []string
	files    []string // "path (size)", as printed (sorted by path)
}

// parseTransmissionShow parses transmission-show's output.
func parseTransmissionShow(out string) (*trShow, error) {
	tr := &trShow{fields: map[string]string{}}
	section := ""
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch line {
		case "GENERAL", "TRACKERS", "WEBSEEDS", "FILES":
			section = line
			continue
		case "":
			continue
		}
		body, ok := strings.CutPrefix(line, "  ")
		if !ok {
			continue // "Name: ...", "File: ..." before GENERAL
		}
		switch section {
		case "GENERAL":
			k, v, ok := strings.Cut(body, ": ")
			if !ok {
				return nil, fmt.Errorf("line %q", line)
			}
			if k == "Comment" { // it may span lines, up to "Piece Count"
				for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "  Piece Count: ") {
					i++
					v += "\n" + lines[i]
				}
			}
			tr.fields[k] = v
		case "TRACKERS":
			if strings.HasPrefix(body, "Tier #") {
				tr.trackers = append(tr.trackers, nil)
			} else if n := len(tr.trackers); n > 0 {
				tr.trackers[n-1] = append(tr.trackers[n-1], body)
			} else {
				return nil, fmt.Errorf("tracker before a tier: %q", line)
			}
		case "WEBSEEDS":
			tr.webseeds = append(tr.webseeds, body)
		case "FILES":
			tr.files = append(tr.files, body)
		}
	}
	return tr, nil
}

// trFormat formats n as libtransmission's formatter does (utils.c,
// formatter_get_size_str): with units of kilo (1000 or 1024) and the
// names of the units from kB up, two decimals below 100, one above.
func trFormat(n int64, kilo float64, names [4]string) string {
	unit, value := 0, kilo
	for unit < 3 && float64(n) >= value*kilo {
		unit++
		value *= kilo
	}
	v := float64(n) / value
	prec := 1
	if v < 100 {
		prec = 2
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + names[unit]
}

// trSize is tr_formatter_size_B as transmission-show sets it up (1000).
func trSize(n int64) string { return trFormat(n, 1000, [4]string{"kB", "MB", "GB", "TB"}) }

// trMem is tr_formatter_mem_B as transmission-show sets it up (1024).
func trMem(n int64) string { return trFormat(n, 1024, [4]string{"KiB", "MiB", "GiB", "TiB"}) }

// trTracker reports whether libtransmission 3.00 keeps an announce URL
// (tr_urlIsValidTracker: http, https or udp, with a host).
func trTracker(u string) bool {
	scheme, rest, ok := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	return ok && (scheme == "http" || scheme == "https" || scheme == "udp") && host != "" && !strings.ContainsAny(u, " \t\r\n")
}

// TestShowMatchesTransmission compares 'b14fs torrent show' with
// transmission-show (Debian transmission-cli 3.00) on every valid torrent
// of the corpus: the fields both print must be equal. Transmission 3.00
// predates BEP 52 and rejects v2 and hybrid torrents (and some others);
// TestShowMatchesLibtorrent covers those.
func TestShowMatchesTransmission(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("transmission-show"); err != nil {
		t.Skip("transmission-show not installed (Debian: apt-get install transmission-cli): not comparing with it")
	}
	compared, rejected := 0, 0
	for _, file := range validTorrents(t) {
		cmd := exec.Command("transmission-show", file)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		ours, ok := showJSON(t, file)
		if err != nil {
			rejected++
			continue // transmission rejects it: nothing printed to compare
		}
		if !ok {
			// Transmission reads some broken files: with no name or a name
			// that is not a string it takes the .torrent's file name, and
			// it knows no v2 file trees. b14fs rejects them, as libtorrent
			// does.
			lt := libtorrentShow(t)
			if lt == nil {
				t.Logf("%s: transmission-show reads it, b14fs rejects it; python3-libtorrent not installed to confirm", file)
			} else if r, ok := lt[file]; !ok || r.Error == "" {
				t.Errorf("%s: transmission-show and libtorrent read it, b14fs rejects it", file)
			}
			continue
		}
		tr, err := parseTransmissionShow(string(out))
		if err != nil {
			t.Fatalf("%s: transmission-show's output: %v\n%s", file, err, out)
		}
		compared++
		for _, d := range diffTransmission(&ours, tr) {
			t.Errorf("%s: %s", filepath.Base(file), d)
		}
	}
	t.Logf("compared %d torrents with transmission-show; it rejected %d (v2, hybrid and broken ones)", compared, rejected)
	if compared == 0 {
		t.Fatal("no torrent compared")
	}
}

// diffTransmission lists the fields of s and tr that differ.
func diffTransmission(s *torrent.Summary, tr *trShow) []string {
	var diffs []string
	eq := func(field, ours, theirs string) {
		if ours != theirs {
			diffs = append(diffs, fmt.Sprintf("%s: b14fs %q, transmission %q", field, ours, theirs))
		}
	}
	f := tr.fields
	eq("Name", string(s.Name), f["Name"])
	eq("Hash", s.InfoHashV1, f["Hash"])
	createdOn := "Unknown"
	if s.CreationDate != nil {
		createdOn = time.Unix(*s.CreationDate, 0).UTC().Format("Mon Jan _2 15:04:05 2006")
	}
	eq("Created on", createdOn, f["Created on"])
	if s.CreatedBy != nil {
		eq("Created by", string(*s.CreatedBy), f["Created by"])
	}
	if s.Comment != nil {
		eq("Comment", string(*s.Comment), f["Comment"])
	}
	eq("Piece Count", strconv.FormatInt(s.Pieces, 10), f["Piece Count"])
	eq("Piece Size", trMem(s.PieceLength), f["Piece Size"])
	var all int64 // transmission counts padding files as files
	var files []string
	for _, file := range s.Files {
		all += file.Length
		files = append(files, string(file.Path)+" ("+trSize(file.Length)+")")
	}
	slices.Sort(files) // transmission-show sorts by path (strcmp; ties in any order)
	slices.Sort(tr.files)
	eq("Total Size", trSize(all), f["Total Size"])
	eq("Privacy", map[bool]string{false: "Public torrent", true: "Private torrent"}[s.Private], f["Privacy"])
	// Transmission lists only the trackers it can announce to, and drops
	// tiers left empty.
	var tiers [][]string
	for _, tier := range s.Trackers {
		var kept []string
		for _, u := range tier {
			if trTracker(string(u)) {
				kept = append(kept, string(u))
			}
		}
		if kept != nil {
			tiers = append(tiers, kept)
		}
	}
	eq("Trackers", fmt.Sprint(tiers), fmt.Sprint(tr.trackers))
	// Transmission keeps the web seeds with no space and a scheme it can
	// fetch from, and ends those of a torrent of several files with '/'
	// (metainfo.c, fix_webseed_url).
	var seeds []string
	for _, u := range s.WebSeeds {
		scheme, _, _ := strings.Cut(string(u), "://")
		if strings.Contains(string(u), " ") || !slices.Contains([]string{"http", "https", "ftp", "sftp"}, scheme) {
			continue
		}
		if len(s.Files) > 1 && !strings.HasSuffix(string(u), "/") {
			u += "/"
		}
		seeds = append(seeds, string(u))
	}
	eq("Webseeds", fmt.Sprint(seeds), fmt.Sprint(tr.webseeds))
	eq("Files", strings.Join(files, "\n"), strings.Join(tr.files, "\n"))
	return diffs
}

// ltInfo is what python3-libtorrent reads of a torrent.
type ltInfo struct {
	File        string `json:"file"`
	Error       string `json:"error"`
	V1, V2      string
	Name        string `json:"name"`
	Pieces      int64  `json:"pieces"`
	PieceLength int64  `json:"piece_length"`
	Files       []struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
		Pad  bool   `json:"pad"`
	} `json:"files"`
	Trackers     [][2]any `json:"trackers"` // tier, URL
	WebSeeds     []string `json:"web_seeds"`
	HTTPSeeds    []string `json:"http_seeds"`
	Private      bool     `json:"private"`
	Creator      string   `json:"creator"`
	Comment      string   `json:"comment"`
	CreationDate int64    `json:"creation_date"`
	Magnet       string   `json:"magnet"`
}

// ltScript prints, for each torrent named, a line of JSON: what
// libtorrent reads of it, or the error it gives.
const ltScript = `
import json, sys, libtorrent as lt
for p in sys.argv[1:]:
    r = {"file": p}
    try:
        ti = lt.torrent_info(p)
    except Exception as e:
        r["error"] = str(e) or "rejected"
        print(json.dumps(r)); continue
    ih, fs = ti.info_hashes(), ti.files()
    r.update({
        "v1": str(ih.v1) if ih.has_v1() else "", "v2": str(ih.v2) if ih.has_v2() else "",
        "name": ti.name(), "pieces": ti.num_pieces(), "piece_length": ti.piece_length(),
        "files": [{"path": fs.file_path(i), "size": fs.file_size(i),
                   "pad": bool(fs.file_flags(i) & lt.file_storage.flag_pad_file)} for i in range(fs.num_files())],
        "trackers": [[t.tier, t.url] for t in ti.trackers()],
        "web_seeds": [w["url"] for w in ti.web_seeds() if w["type"] == 0],
        "http_seeds": [w["url"] for w in ti.web_seeds() if w["type"] == 1],
        "private": ti.priv(), "creator": ti.creator(), "comment": ti.comment(),
        "creation_date": ti.creation_date(), "magnet": lt.make_magnet_uri(ti)})
    print(json.dumps(r))
`

var (
	ltOnce    sync.Once
	ltResults map[string]*ltInfo
)

// libtorrentShow returns what libtorrent reads of every torrent of
// validTorrents, by file name, or nil when python3-libtorrent is not
// installed.
func libtorrentShow(t *testing.T) map[string]*ltInfo {
	ltOnce.Do(func() {
		py := ""
		for _, p := range []string{"/usr/bin/python3", "python3"} {
			if exec.Command(p, "-c", "import libtorrent").Run() == nil {
				py = p
				break
			}
		}
		if py == "" {
			return
		}
		out, err := exec.Command(py, append([]string{"-c", ltScript}, validTorrents(t)...)...).Output()
		if err != nil {
			t.Fatalf("python3-libtorrent: %v", err)
		}
		ltResults = map[string]*ltInfo{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r ltInfo
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("python3-libtorrent: %v: %s", err, line)
			}
			ltResults[r.File] = &r
		}
	})
	return ltResults
}

// TestShowMatchesLibtorrent compares 'b14fs torrent show' with libtorrent
// (Debian python3-libtorrent 2.0.8), which reads v2 and hybrid torrents
// (BEP 52), on every valid torrent of the corpus: b14fs must reject the
// files libtorrent rejects (but for nesting deeper than libtorrent's limit
// of 100), and read the others as libtorrent does: info-hashes, name,
// pieces, piece length, files and their sizes (paths where they are safe,
// since the two sanitize unsafe ones differently), trackers, web seeds,
// private flag, creator, comment, creation date and magnet link.
func TestShowMatchesLibtorrent(t *testing.T) {
	t.Parallel()
	lt := libtorrentShow(t)
	if lt == nil {
		t.Skip("python3-libtorrent not installed (Debian: apt-get install python3-libtorrent): not comparing with it")
	}
	compared, v2 := 0, 0
	for _, file := range validTorrents(t) {
		r := lt[file]
		ours, ok := showJSON(t, file)
		switch {
		case r == nil:
			t.Fatalf("%s: no answer from libtorrent", file)
		case r.Error != "" && ok:
			if !strings.Contains(r.Error, "nesting depth") {
				t.Errorf("%s: libtorrent rejects it (%s), b14fs reads it", file, r.Error)
			}
			continue
		case r.Error != "":
			continue
		case !ok:
			t.Errorf("%s: libtorrent reads it, b14fs rejects it", file)
			continue
		}
		compared++
		if ours.InfoHashV2 != "" {
			v2++
		}
		for _, d := range diffLibtorrent(&ours, r) {
			t.Errorf("%s: %s", filepath.Base(file), d)
		}
	}
	t.Logf("compared %d torrents with libtorrent, %d of them v2 or hybrid", compared, v2)
	if compared == 0 || v2 == 0 {
		t.Fatal("no v2 torrent compared")
	}
}

func diffLibtorrent(s *torrent.Summary, r *ltInfo) []string {
	var diffs []string
	eq := func(field string, ours, theirs any) {
		if fmt.Sprint(ours) != fmt.Sprint(theirs) {
			diffs = append(diffs, fmt.Sprintf("%s: b14fs %v, libtorrent %v", field, ours, theirs))
		}
	}
	eq("v1 info-hash", s.InfoHashV1, r.V1)
	eq("v2 info-hash", s.InfoHashV2, r.V2)
	eq("pieces", s.Pieces, r.Pieces)
	eq("piece length", s.PieceLength, r.PieceLength)
	eq("private", s.Private, r.Private)
	eq("creation date", ptrOr(s.CreationDate, 0), r.CreationDate)
	eq("creator", string(ptrOr(s.CreatedBy, "")), r.Creator)
	eq("comment", string(ptrOr(s.Comment, "")), r.Comment)
	// Padding files: libtorrent makes its own for v2 torrents. Links:
	// libtorrent makes their size 0.
	var ours, theirs []string
	for _, f := range s.Files {
		switch {
		case f.Pad:
		case strings.Contains(f.Attr, "l"):
			ours = append(ours, "0")
		default:
			ours = append(ours, fmt.Sprint(f.Length))
		}
	}
	for _, f := range r.Files {
		if !f.Pad {
			theirs = append(theirs, fmt.Sprint(f.Size))
		}
	}
	eq("file sizes", ours, theirs)
	if len(ours) == len(theirs) {
		i, seen := 0, map[string]bool{}
		for _, f := range s.Files {
			if f.Pad {
				continue
			}
			for r.Files[i].Pad {
				i++
			}
			var elems []string
			for _, e := range f.PathElements {
				if e, ok := comparable(e); ok {
					elems = append(elems, e)
				}
			}
			p, safe := torrent.SafePath(elems)
			if safe && len(elems) == len(f.PathElements) && !seen[p] && !strings.Contains(f.Attr, "l") {
				eq("path", p, r.Files[i].Path)
			}
			seen[p] = true
			i++
		}
	}
	if name, ok := comparable(s.Name); ok {
		eq("name", name, r.Name)
	}
	var trackers, ltTrackers []string
	for _, tier := range s.Trackers {
		for _, u := range tier {
			trackers = append(trackers, string(u))
		}
	}
	for _, tr := range r.Trackers {
		ltTrackers = append(ltTrackers, fmt.Sprint(tr[1]))
	}
	eq("trackers", trackers, ltTrackers)
	// libtorrent escapes web seeds, leaves out repeated ones, and ends
	// those of a torrent of several files with '/'.
	var seeds []string
	for _, u := range r.WebSeeds {
		if v, err := url.PathUnescape(u); err == nil {
			u = v
		}
		seeds = append(seeds, u)
	}
	var ourSeeds []string
	for _, u := range s.WebSeeds {
		if len(s.Files) > 1 && !strings.HasSuffix(string(u), "/") {
			u += "/"
		}
		if !slices.Contains(ourSeeds, string(u)) {
			ourSeeds = append(ourSeeds, string(u))
		}
	}
	eq("web seeds", ourSeeds, seeds)
	var httpSeeds []string // BEP 17, escaped by libtorrent
	for _, u := range r.HTTPSeeds {
		if v, err := url.PathUnescape(u); err == nil {
			u = v
		}
		httpSeeds = append(httpSeeds, u)
	}
	eq("http seeds", s.HTTPSeeds, httpSeeds)
	// Magnet links: the same parameters, but web seeds (above).
	ourMagnet, err1 := url.ParseQuery(strings.TrimPrefix(s.Magnet, "magnet:?"))
	ltMagnet, err2 := url.ParseQuery(strings.TrimPrefix(r.Magnet, "magnet:?"))
	if err1 != nil || err2 != nil {
		diffs = append(diffs, fmt.Sprintf("magnet: %v, %v", err1, err2))
	}
	for _, k := range []string{"xt", "dn", "tr"} {
		if _, ok := comparable(s.Name); ok || k != "dn" {
			eq("magnet "+k, ourMagnet[k], ltMagnet[k])
		}
	}
	return diffs
}

// comparable returns a name or path element when libtorrent keeps it as
// it is: valid UTF-8 (not the base64 form), a safe path element, at most
// 240 bytes (libtorrent shortens longer ones). libtorrent makes other
// names safe in its own way (see torrent.FileEntry.LocalPath for ours).
func comparable(t torrent.Text) (string, bool) {
	e := string(t)
	_, safe := torrent.SafePath([]string{e})
	return e, safe && len(e) <= 240 && !strings.HasPrefix(e, "base64:")
}

func ptrOr[T any](p *T, or T) T {
	if p == nil {
		return or
	}
	return *p
}
