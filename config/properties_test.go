package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	text := strings.Join([]string{
		"# a comment",
		"   ! another comment \\",
		"broker.id=0",
		"zookeeper.connect = zk1:2181,zk2:2181/kafka",
		"listeners:PLAINTEXT://:9092",
		"log.dirs /tmp/kafka-logs",
		"\t\fnum.partitions\t=\t3   ",
		"",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,\\",
		"    SSL:SSL",
		"key\\=with\\:seps=v",
		"key\\ with\\ spaces = a\\tb\\u0041\\\\",
		"empty.value=",
		"bare.key",
		"dup=1",
		"dup=2",
		"unicode=caf\\u00e9",
		"crlf=x\r\nnext=y\rlast=z\\",
	}, "\n")
	got, err := parseProperties(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []property{
		{"broker.id", "0", 3},
		{"zookeeper.connect", "zk1:2181,zk2:2181/kafka", 4},
		{"listeners", "PLAINTEXT://:9092", 5},
		{"log.dirs", "/tmp/kafka-logs", 6},
		{"num.partitions", "3   ", 7},
		{"listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL", 9},
		{"key=with:seps", "v", 11},
		{"key with spaces", "a\tbA\\", 12},
		{"empty.value", "", 13},
		{"bare.key", "", 14},
		{"dup", "1", 15},
		{"dup", "2", 16},
		{"unicode", "café", 17},
		{"crlf", "x", 18},
		{"next", "y", 19},
		{"last", "z", 20},
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w property
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("entry %d: got %+v, want %+v", i, g, w)
			}
		}
	}
}

func TestParsePropertiesBadEscape(t *testing.T) {
	for _, in := range []string{"a=\\u12", "a=\\uZZZZ", "\\u00=b"} {
		if _, err := parseProperties(in); err == nil || !strings.Contains(err.Error(), "line 1: malformed \\uxxxx") {
			t.Errorf("parseProperties(%q) err = %v", in, err)
		}
	}
}

func TestEndsInContinuation(t *testing.T) {
	tests := map[string]bool{"a": false, "a\\": true, "a\\\\": false, "a\\\\\\": true, "": false}
	for in, want := range tests {
		if endsInContinuation(in) != want {
			t.Errorf("endsInContinuation(%q) != %v", in, want)
		}
	}
}

// TestPropertiesJavaRules pins single lines against what
// java.util.Properties.load gives for them.
func TestPropertiesJavaRules(t *testing.T) {
	tests := []struct {
		line, key, value string
	}{
		{"a=b", "a", "b"},
		{"a = b", "a", "b"},
		{"a:b", "a", "b"},
		{"a : b", "a", "b"},
		{"a b", "a", "b"},
		{"a\tb", "a", "b"},
		{"a  =  b  ", "a", "b  "}, // trailing blanks stay in the value
		{"a==b", "a", "=b"},       // only one separator is skipped
		{"a=:b", "a", ":b"},       // likewise
		{"a =", "a", ""},          // empty value
		{"a", "a", ""},            // key alone
		{"a:=b", "a", "=b"},       // ':' is the separator, '=' is value
		{"a\\ b=c", "a b", "c"},   // escaped blank in key
		{"a=b\\nc", "a", "b\nc"},  // \n escape
		{"a=\\u00e9t\\u00e9", "a", "été"},
		{"a=\\q", "a", "q"},   // unknown escape: the character
		{"a=b#c", "a", "b#c"}, // '#' inside a value is not a comment
		{"  a=b", "a", "b"},   // leading blanks dropped
		{"\\#a=b", "#a", "b"}, // escaped comment character
		{"a=C:\\\\dir", "a", "C:\\dir"},
		{"a=http://h:1/x", "a", "http://h:1/x"},
	}
	for _, tt := range tests {
		props, err := parseProperties(tt.line)
		if err != nil || len(props) != 1 {
			t.Errorf("%q: %v, %d entries", tt.line, err, len(props))
			continue
		}
		if props[0].Key != tt.key || props[0].Value != tt.value {
			t.Errorf("%q: got %q=%q, want %q=%q", tt.line, props[0].Key, props[0].Value, tt.key, tt.value)
		}
	}
}

func TestPropertiesContinuations(t *testing.T) {
	tests := []struct {
		text string
		want []property
	}{
		{"a=1,\\\n  2,\\\n\t3", []property{{"a", "1,2,3", 1}}},
		{"a=1\\\\\nb=2", []property{{"a", "1\\", 1}, {"b", "2", 2}}}, // an even count does not continue
		{"# c \\\na=1", []property{{"a", "1", 2}}},                   // comments never continue
		{"a=1\\", []property{{"a", "1", 1}}},                         // backslash at end of file
		{"a=1\\\n", []property{{"a", "1", 1}}},                       // continued onto an empty last line
		{"a=\\\n\\\nb", []property{{"a", "b", 1}}},
		{"\n\n  \t\nk=v", []property{{"k", "v", 4}}},
	}
	for _, tt := range tests {
		got, err := parseProperties(tt.text)
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.text, got, tt.want)
		}
	}
}
