package kafkaconn

import "fmt"

// ResponseSizeError reports a response size prefix outside [4, Max]: four
// bytes is the smallest frame, the correlation id alone.
type ResponseSizeError struct {
	Size int32
	Max  int32
}

func (e *ResponseSizeError) Error() string {
	return fmt.Sprintf("response size %d outside [4, %d]", e.Size, e.Max)
}

// CorrelationError reports a response whose correlation id is not the one
// of the request in flight: the stream is out of step and the connection
// is unusable.
type CorrelationError struct {
	Want, Got int32
}

func (e *CorrelationError) Error() string {
	return fmt.Sprintf("response correlation id %d, expected %d", e.Got, e.Want)
}

// VersionError reports that the peer does not serve Key in the version
// range [Lo, Hi] the caller can speak. Min and Max are the peer's range;
// Advertised is false when the peer does not list the key at all.
type VersionError struct {
	Addr       string
	Name       string
	Key        int16
	Lo, Hi     int16
	Advertised bool
	Min, Max   int16
}

func (e *VersionError) Error() string {
	if !e.Advertised {
		return fmt.Sprintf("%s does not support %s", e.Addr, e.Name)
	}
	return fmt.Sprintf("%s supports %s v%d-%d, need v%d-%d", e.Addr, e.Name, e.Min, e.Max, e.Lo, e.Hi)
}
