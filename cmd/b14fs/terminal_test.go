package main

import "testing"

func TestIsText(t *testing.T) {
	tests := []struct {
		in   string
		more bool
		want bool
	}{
		{"hello\n", false, true},
		{"tab\tCR\r\nFF\fBS\b", false, true},
		{"婌焳廔萷\n", false, true},
		{"", false, true},
		{"\x00", false, false},
		{"\x1b[31mred", false, false}, // escape sequences would change the terminal
		{"del\x7f", false, false},
		{"\xff\xfe", false, false},
		{"ZLq3^\xd4\x847", false, true}, // raw UTF-16BE that happens to be UTF-8: encode refuses it by form
		{"cut \xe5\xa9", true, true},    // a character cut by the end of what was sniffed
		{"cut \xe5\xa9", false, false},
		{"\xe5\xa9 in the middle", true, false},
	}
	for _, tc := range tests {
		if got := isText([]byte(tc.in), tc.more); got != tc.want {
			t.Errorf("isText(%q, more=%v) = %v, want %v", tc.in, tc.more, got, tc.want)
		}
	}
}
