package controller

import "testing"

// A listing sent before a create multi was applied may lack the multi's
// topics: they must not count as deleted until a listing sent after the
// multi arrives.
func TestCreatedTopicsGuardListingsThatPredateACreate(t *testing.T) {
	var ct createdTopics
	ct.add([]string{"a", "b"}) // multi 1
	listedBeforeSecond := ct.seq
	ct.add([]string{"c"}) // multi 2, applied while that listing was in flight

	ct.listed(listedBeforeSecond)
	for _, n := range []string{"a", "b"} {
		if ct.newerThanListing(n) {
			t.Errorf("%s: made by a multi the listing saw, so its absence would mean a deletion", n)
		}
	}
	if !ct.newerThanListing("c") {
		t.Error("c: made after the listing was sent, so its absence proves nothing")
	}

	ct.listed(ct.seq)
	if ct.newerThanListing("c") {
		t.Error("c: a listing sent after its multi has arrived")
	}
	if len(ct.recent) != 0 {
		t.Errorf("recent = %v, want empty once every multi is listed", ct.recent)
	}
}

// A topic created twice (deleted and created again) keeps the newer
// multi's number.
func TestCreatedTopicsKeepTheNewestMulti(t *testing.T) {
	var ct createdTopics
	ct.add([]string{"a"})
	first := ct.seq
	ct.add([]string{"a"})
	ct.listed(first)
	if !ct.newerThanListing("a") {
		t.Error("a was made again by a multi after the listing")
	}
}
