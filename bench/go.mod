module github.com/b14fs/b14fs/bench

go 1.26.0

require (
	github.com/anacrolix/torrent v1.62.0
	github.com/b14fs/b14fs v0.0.0
)

require (
	github.com/anacrolix/missinggo v1.3.0 // indirect
	github.com/anacrolix/missinggo/v2 v2.11.0 // indirect
	github.com/huandu/xstrings v1.3.2 // indirect
)

replace github.com/b14fs/b14fs => ../
