package znodes

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// TestFastInt32sMatchesSlowPath: the reflection-free path must agree with
// the general decoder on every array it accepts, and decline the rest.
func TestFastInt32sMatchesSlowPath(t *testing.T) {
	cases := []string{
		`[]`, `[ ]`, `[1]`, `[1,2,3]`, ` [ 1 , -2 ,3 ] `, `[0]`, `[-0]`, `[2147483647,-2147483648]`,
		`[2147483648]`, `[-2147483649]`, `[1.0]`, `[1e2]`, `["1"]`, `[null]`, `[true]`, `[[1]]`, `[{"a":1}]`,
		`["a,b"]`, `[1,"2"]`, `[99999999999]`, `{}`, `"[1]"`, `1`,
	}
	d := decoder{znode: "/t"}
	for _, in := range cases {
		fast, ok := fastInt32s([]byte(in))
		d.znode = "/t"
		slow, err := d.int32s("f", []byte(in))
		if ok {
			if err != nil || !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s: fast %v, slow %v (%v)", in, fast, slow, err)
			}
			continue
		}
		// Declined inputs must be either errors or values only the slow
		// path represents; none of the table's are valid int arrays.
		if err == nil && len(slow) > 0 {
			t.Errorf("%s: fast path declined a valid array %v", in, slow)
		}
	}
}

func TestFastInt32sRandomArrays(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	d := decoder{znode: "/t"}
	for i := 0; i < 2000; i++ {
		n := r.IntN(8)
		vals := make([]int64, n)
		for j := range vals {
			vals[j] = int64(r.Uint32()) - 1<<31
			if r.IntN(10) == 0 {
				vals[j] *= 3 // sometimes out of int32 range
			}
		}
		text, _ := json.Marshal(vals)
		fast, ok := fastInt32s(text)
		slow, err := d.int32s("f", text)
		if ok != (err == nil) {
			t.Fatalf("%s: fast ok=%v, slow err=%v", text, ok, err)
		}
		if ok && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: fast %v, slow %v", text, fast, slow)
		}
	}
}

func TestParseInt32Literal(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 9, 10, 2147483647, -2147483648, 1000000000} {
		got, ok := parseInt32Literal([]byte(strconv.FormatInt(v, 10)))
		if !ok || int64(got) != v {
			t.Errorf("parseInt32Literal(%d) = %d, %v", v, got, ok)
		}
	}
	for _, s := range []string{"", "-", "01", "2147483648", "-2147483649", "12345678901", "1.0", "+1", " 1"} {
		if got, ok := parseInt32Literal([]byte(s)); ok {
			t.Errorf("parseInt32Literal(%q) = %d, want rejection", s, got)
		}
	}
}
