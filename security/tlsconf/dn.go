package tlsconf

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// attribute is one AttributeTypeAndValue with its value kept raw, so that
// attributes without a keyword can be written as #<hex DER>.
type attribute struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// rdnSET is a RelativeDistinguishedName; the SET suffix makes
// encoding/asn1 decode it as a SET OF.
type rdnSET []attribute

// rfc2253Keyword returns the keyword Java's RFC 2253 output uses for an
// attribute type; only these nine have one.
func rfc2253Keyword(oid string) (string, bool) {
	switch oid {
	case "2.5.4.3":
		return "CN", true
	case "2.5.4.6":
		return "C", true
	case "2.5.4.7":
		return "L", true
	case "2.5.4.8":
		return "ST", true
	case "2.5.4.10":
		return "O", true
	case "2.5.4.11":
		return "OU", true
	case "2.5.4.9":
		return "STREET", true
	case "0.9.2342.19200300.100.1.25":
		return "DC", true
	case "0.9.2342.19200300.100.1.1":
		return "UID", true
	}
	return "", false
}

// SubjectDN writes cert's subject as Java's X500Principal.getName() (the
// RFC 2253 format) does; this is the text ssl.principal.mapping.rules see.
func SubjectDN(cert *x509.Certificate) (string, error) {
	return DistinguishedName(cert.RawSubject)
}

// DistinguishedName writes a DER-encoded Name in RFC 2253 form.
func DistinguishedName(der []byte) (string, error) {
	var seq []rdnSET
	rest, err := asn1.Unmarshal(der, &seq)
	if err != nil {
		return "", fmt.Errorf("certificate subject: %w", err)
	}
	if len(rest) > 0 {
		return "", fmt.Errorf("certificate subject: trailing data")
	}
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if i != len(seq)-1 {
			b.WriteByte(',')
		}
		for j, a := range seq[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			writeAttribute(&b, a)
		}
	}
	return b.String(), nil
}

func writeAttribute(b *strings.Builder, a attribute) {
	oid := a.Type.String()
	keyword, known := rfc2253Keyword(oid)
	if known {
		if s, ok := stringValue(a.Value); ok {
			b.WriteString(keyword)
			b.WriteByte('=')
			b.WriteString(escapeValue(s))
			return
		}
	} else {
		keyword = oid
	}
	b.WriteString(keyword)
	b.WriteString("=#")
	b.WriteString(hex.EncodeToString(a.Value.FullBytes))
}

// stringValue decodes the directory string types; false for any other.
func stringValue(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case asn1.TagPrintableString, asn1.TagUTF8String, asn1.TagIA5String, asn1.TagT61String,
		asn1.TagNumericString, asn1.TagBMPString:
		var s string
		if _, err := asn1.Unmarshal(v.FullBytes, &s); err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// escapeValue applies RFC 2253 §2.4: a backslash before , + " \ < > ;, a
// leading '#' or space and a trailing space; control characters become
// \<hex> per byte.
func escapeValue(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(",+\"\\<>;", r),
			i == 0 && (r == '#' || r == ' '),
			r == ' ' && i == len(s)-1:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\%02X", r)
		case r == utf8.RuneError:
			b.WriteString("\\EF\\BF\\BD")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
