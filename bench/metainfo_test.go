package bench

import (
	"testing"

	anacrolix "github.com/anacrolix/torrent/bencode"

	"github.com/b14fs/b14fs/plugins/bencode"
	metainfo "github.com/b14fs/b14fs/torrent"
)

// metainfoCorpus returns the files of structCorpus that metainfo.Parse
// also accepts (it rejects torrents that break their BEPs, such as a
// wrong number of piece hashes).
func metainfoCorpus(b *testing.B) [][]byte {
	files, _ := structCorpus(b)
	var ok [][]byte
	for _, f := range files {
		if _, err := metainfo.Parse(f); err == nil {
			ok = append(ok, f)
		}
	}
	return ok
}

// BenchmarkDecodeMetaInfo decodes the corpus into metainfo.MetaInfo (every
// key, the exact info bytes, the checks of BEP 3, 12, 19, 27, 47 and 52)
// beside decoding the same files into the struct of DecodeTorrent, with
// b14fs's Unmarshal and with anacrolix's, in the same run: all the files
// (files=all), and those without a v2 file tree (files=v1), since the
// struct has no field for the tree and skips it.
func BenchmarkDecodeMetaInfo(b *testing.B) {
	all := metainfoCorpus(b)
	var v1 [][]byte
	for _, f := range all {
		if m, _ := metainfo.Parse(f); m.Info.FileTree == nil {
			v1 = append(v1, f)
		}
	}
	for _, set := range []struct {
		name  string
		files [][]byte
	}{{"all", all}, {"v1", v1}} {
		files, size := set.files, totalSize(set.files)
		measure(b, "files="+set.name+"/into=metainfo/lib=b14fs", size, func() error {
			for _, f := range files {
				if _, err := metainfo.Parse(f); err != nil {
					return err
				}
			}
			return nil
		})
		for _, l := range []struct {
			name      string
			unmarshal func([]byte, any) error
		}{{"b14fs", bencode.Unmarshal}, {"anacrolix", anacrolix.Unmarshal}} {
			measure(b, "files="+set.name+"/into=struct/lib="+l.name, size, func() error {
				for _, f := range files {
					var t torrent
					if err := l.unmarshal(f, &t); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
}
