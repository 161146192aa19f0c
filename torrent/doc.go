// Package torrent reads, writes and checks BitTorrent metainfo (.torrent
// files) on top of the bencode codec.
//
// It covers BEP 3 single- and multi-file torrents, BEP 52 (v2 file trees,
// piece layers, hybrid torrents), BEP 12 announce lists, BEP 19 web seeds,
// BEP 27 private torrents and BEP 47 padding files and attributes.
//
// One call decodes a file into a MetaInfo and keeps the exact bytes of its
// info dictionary, from which the info-hashes are computed:
//
//	mi, err := torrent.Parse(data)
//	v1 := mi.InfoHashV1()         // SHA-1 of the info bytes
//	link := mi.Magnet()           // magnet:?xt=urn:btih:...
//	for f := range mi.Info.Walk() // the files, as a client lays them out
//
// ParseLazy leaves the lists of files undecoded in the input, and the
// methods read them from there when they are walked: a torrent of a
// million files then takes little memory beyond its bytes.
//
// Summarize returns what torrent tools show of a torrent as a Summary,
// whose JSON form, written by WriteSummaryJSON one file at a time, is the
// stable output of 'b14fs torrent show --json'.
//
// Keys the package does not know are kept (Extra), so that encoding a
// decoded MetaInfo gives back the same bytes. Decoding is strict by default
// (the rules of the bencode package); errors name the byte offset where the
// input went wrong, and the key.
//
// Verify checks data against a torrent: SHA-1 pieces for v1 and hybrid
// torrents, SHA-256 merkle trees for v2, reading the files from any fs.FS
// (such as an fsx view of files stored encoded, or RootFS, which keeps
// every name inside a directory). Create makes a torrent of files, with
// the info-hashes mktorrent (v1) and libtorrent (v2, hybrid) give the same
// files, hashing on several goroutines.
//
// Hostile input cannot make the package panic or allocate out of proportion
// to the input: the bencode scanner checks lengths before use and nesting
// depth, and the package allocates by what it has read, never by the sizes
// a file announces.
package torrent
