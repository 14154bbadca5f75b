package deletion

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidMarker is matched (errors.Is) by every *MarkerError.
var ErrInvalidMarker = errors.New("invalid deletion marker")

// MarkerError says why a child of /admin/delete_topics was refused.
type MarkerError struct {
	Name   string
	Reason string
}

func (e *MarkerError) Error() string {
	return fmt.Sprintf("deletion marker %q under /admin/delete_topics: %s", e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidMarker) true.
func (e *MarkerError) Is(target error) bool { return target == ErrInvalidMarker }

// checkMarkerName refuses names that cannot be one znode name, because
// the manager builds /brokers/topics/<name>, /config/topics/<name> and
// /admin/delete_topics/<name> from them and must never address anything
// outside the topic's own znodes. Names that are merely illegal as topic
// names (spaces, too long) are valid znode names: they are handled like
// any other marker (removed when no such topic exists, as Kafka does).
func checkMarkerName(name string) error {
	switch {
	case name == "":
		return &MarkerError{Name: name, Reason: "empty name"}
	case name == "." || name == "..":
		return &MarkerError{Name: name, Reason: "relative path segment"}
	case strings.ContainsRune(name, '/'):
		return &MarkerError{Name: name, Reason: "name contains '/'"}
	case strings.ContainsRune(name, 0):
		return &MarkerError{Name: name, Reason: "name contains a NUL byte"}
	}
	return nil
}
