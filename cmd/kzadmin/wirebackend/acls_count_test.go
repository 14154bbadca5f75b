package wirebackend

import (
	"strings"
	"testing"
)

func TestAnswerCount(t *testing.T) {
	if err := answerCount("CreateAcls", 2, 2); err != nil {
		t.Fatal(err)
	}
	err := answerCount("CreateAcls", 1, 2)
	if err == nil || !strings.Contains(err.Error(), "CreateAcls: the cluster answered 1 results for 2 items sent") {
		t.Fatalf("short answer: %v", err)
	}
}
