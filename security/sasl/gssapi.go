package sasl

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// GSSAPI is the mechanism's name.
const GSSAPI = "GSSAPI"

// GSSAPIClient is the client side of SASL GSSAPI (RFC 4752) with Kerberos
// V5 (RFC 4121), authentication only: the mechanism ZooKeeper's clients
// log in with when their JAAS section names Krb5LoginModule. The exchange
// takes three tokens:
//
//  1. the client's AP-REQ for the service's ticket, asking for mutual
//     authentication; the server answers with its AP-REP, which proves
//     that it holds the service's key (a server that cannot is refused);
//  2. an empty token; the server answers with the security layers it
//     offers, in a wrap token checked with the context's key;
//  3. the client's choice, no security layer, wrapped likewise; the
//     server's answer ends the exchange.
//
// The Kerberos side (the ticket-granting login, the service ticket) is
// Tickets', so that one login serves every connection. One value serves
// one exchange: Start, then Next for each server token, until Next
// reports done.
type GSSAPIClient struct {
	// Tickets gets the service ticket.
	Tickets ServiceTickets
	// Service is the service principal's name without a realm,
	// "<service>/<host>", e.g. "zookeeper/zk1.example.com".
	Service string

	step       int
	sessionKey types.EncryptionKey
	// subkey is the acceptor's subkey from its AP-REP, when it sent one.
	subkey types.EncryptionKey
	auth   types.Authenticator
}

// ServiceTickets gets service tickets for a logged-in Kerberos principal
// (KerberosLogin).
type ServiceTickets interface {
	// ServiceTicket returns a ticket for spn ("<service>/<host>") and its
	// session key.
	ServiceTicket(spn string) (messages.Ticket, types.EncryptionKey, error)
	// Client is the principal's realm and name, for the authenticator.
	Client() (realm string, name types.PrincipalName)
}

// The GSS-API context flags asked for (RFC 4121 4.1.1.1): mutual
// authentication and integrity, which the security-layer negotiation's
// wrap tokens need.
const gssFlags = gssapi.ContextFlagMutual | gssapi.ContextFlagInteg

// Wrap token flags (RFC 4121 4.2.2).
const (
	wrapSentByAcceptor = 0x01
	wrapSealed         = 0x02
	wrapAcceptorSubkey = 0x04
)

// noSecurityLayer is RFC 4752's bit for "no security layer".
const noSecurityLayer = 0x01

// maxGSSAPIToken bounds a server token: an AP-REP or a wrap token of four
// bytes is far smaller.
const maxGSSAPIToken = 64 << 10

// krb5MechOID is the Kerberos V5 GSS-API mechanism, 1.2.840.113554.1.2.2.
var krb5MechOID = asn1.ObjectIdentifier{1, 2, 840, 113554, 1, 2, 2}

// The token ids inside a mechanism token (RFC 4121 4.1).
var (
	tokAPReq    = []byte{0x01, 0x00}
	tokAPRep    = []byte{0x02, 0x00}
	tokKRBError = []byte{0x03, 0x00}
)

// Start returns the first token: the GSS-API initial context token
// holding an AP-REQ for Service.
func (c *GSSAPIClient) Start() ([]byte, error) {
	if c.step != 0 {
		return nil, errors.New("GSSAPI: exchange already started")
	}
	if c.Tickets == nil || c.Service == "" {
		return nil, errors.New("GSSAPI: no Kerberos login or no service principal")
	}
	tkt, key, err := c.Tickets.ServiceTicket(c.Service)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: service ticket for %s: %w", c.Service, err)
	}
	realm, name := c.Tickets.Client()
	auth, err := types.NewAuthenticator(realm, name)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: authenticator: %w", err)
	}
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: gssChecksum(gssFlags)}
	req, err := messages.NewAPReq(tkt, key, auth)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REQ: %w", err)
	}
	types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	body, err := req.Marshal()
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REQ: %w", err)
	}
	token, err := gssMechToken(tokAPReq, body)
	if err != nil {
		return nil, err
	}
	c.step, c.sessionKey, c.auth = 1, key, auth
	return token, nil
}

// Next takes the server's token and returns the client's next one; done
// means the returned token is the last.
func (c *GSSAPIClient) Next(server []byte) (token []byte, done bool, err error) {
	if len(server) > maxGSSAPIToken {
		return nil, false, fmt.Errorf("GSSAPI: server token of %d bytes", len(server))
	}
	switch c.step {
	case 1:
		if err := c.checkAPRep(server); err != nil {
			return nil, false, err
		}
		c.step = 2
		return []byte{}, false, nil
	case 2:
		reply, err := c.chooseLayer(server)
		if err != nil {
			return nil, false, err
		}
		c.step = 3
		return reply, true, nil
	default:
		return nil, false, errors.New("GSSAPI: exchange not started or already over")
	}
}

// checkAPRep checks the server's answer to the AP-REQ: an AP-REP whose
// encrypted part, under the ticket's session key, echoes the
// authenticator's time. It keeps the acceptor's subkey, if any.
func (c *GSSAPIClient) checkAPRep(server []byte) error {
	if len(server) == 0 {
		return errors.New("GSSAPI: the server answered the AP-REQ without an AP-REP, so it has not proved " +
			"that it is the service (mutual authentication was asked for)")
	}
	id, body, err := parseGSSMechToken(server)
	if err != nil {
		return err
	}
	switch {
	case bytes.Equal(id, tokKRBError):
		var kerr messages.KRBError
		if err := kerr.Unmarshal(body); err != nil {
			return fmt.Errorf("GSSAPI: the server answered with a Kerberos error that does not decode: %w", err)
		}
		return fmt.Errorf("GSSAPI: the server refused the ticket: %s", kerr.Error())
	case !bytes.Equal(id, tokAPRep):
		return fmt.Errorf("GSSAPI: the server answered with token id %x, not an AP-REP", id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(body); err != nil {
		return fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	plain, err := crypto.DecryptEncPart(rep.EncPart, c.sessionKey, keyusage.AP_REP_ENCPART)
	if err != nil {
		return fmt.Errorf("GSSAPI: the server's AP-REP does not open with the ticket's session key, "+
			"so it is not the service: %w", err)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	// GeneralizedTime carries whole seconds; cusec the microseconds.
	if part.CTime.Unix() != c.auth.CTime.Unix() || part.Cusec != c.auth.Cusec {
		return errors.New("GSSAPI: the server's AP-REP does not echo this client's authenticator")
	}
	if part.Subkey.KeyType != 0 {
		c.subkey = part.Subkey
	}
	return nil
}

// chooseLayer reads the server's offer (a wrap token of four bytes: the
// layers it supports and its largest buffer) and answers "no security
// layer", wrapped with the same key.
func (c *GSSAPIClient) chooseLayer(server []byte) ([]byte, error) {
	wt, err := readWrapToken(server)
	if err != nil {
		return nil, err
	}
	key := c.sessionKey
	if wt.Flags&wrapAcceptorSubkey != 0 {
		if c.subkey.KeyType == 0 {
			return nil, errors.New("GSSAPI: the server's wrap token uses an acceptor subkey its AP-REP did not carry")
		}
		key = c.subkey
	}
	if err := verifyWrapToken(wt, key); err != nil {
		return nil, err
	}
	if len(wt.Payload) != 4 {
		return nil, fmt.Errorf("GSSAPI: the server's security-layer offer has %d bytes, not 4", len(wt.Payload))
	}
	if wt.Payload[0]&noSecurityLayer == 0 {
		return nil, fmt.Errorf("GSSAPI: the server requires a security layer (offer %#02x); only authentication is "+
			"supported (ZooKeeper's default)", wt.Payload[0])
	}
	// No layer, and so no buffer: the maximum size is zero. No
	// authorization id: the server then takes the authenticated principal.
	reply := &gssapi.WrapToken{
		Flags:     wt.Flags & wrapAcceptorSubkey,
		SndSeqNum: uint64(c.auth.SeqNumber),
		Payload:   []byte{noSecurityLayer, 0, 0, 0},
	}
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: key type %d: %w", key.KeyType, err)
	}
	reply.EC = uint16(et.GetHMACBitLength() / 8)
	if err := reply.SetCheckSum(key, keyusage.GSSAPI_INITIATOR_SEAL); err != nil {
		return nil, fmt.Errorf("GSSAPI: wrap the reply: %w", err)
	}
	return reply.Marshal()
}

// readWrapToken decodes a wrap token from the acceptor, undoing its
// rotation (RFC 4121 4.2.5), and refuses a sealed one: authentication
// asks for integrity only.
func readWrapToken(b []byte) (*gssapi.WrapToken, error) {
	if len(b) < gssapi.HdrLen {
		return nil, fmt.Errorf("GSSAPI: the server's wrap token has %d bytes", len(b))
	}
	if rrc := int(binary.BigEndian.Uint16(b[6:8])); rrc != 0 {
		data := b[gssapi.HdrLen:]
		if len(data) > 0 {
			rrc %= len(data)
			unrotated := append(append(append([]byte(nil), b[:gssapi.HdrLen]...), data[rrc:]...), data[:rrc]...)
			binary.BigEndian.PutUint16(unrotated[6:8], 0)
			b = unrotated
		}
	}
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(b, true); err != nil {
		return nil, fmt.Errorf("GSSAPI: the server's wrap token: %w", err)
	}
	if wt.Flags&wrapSealed != 0 {
		return nil, errors.New("GSSAPI: the server's wrap token is sealed (encrypted); only integrity-protected tokens are expected")
	}
	return &wt, nil
}

// verifyWrapToken checks the acceptor's checksum over the payload and
// header.
func verifyWrapToken(wt *gssapi.WrapToken, key types.EncryptionKey) error {
	header := make([]byte, gssapi.HdrLen)
	copy(header, []byte{0x05, 0x04, wt.Flags, 0xFF, 0, 0, 0, 0})
	binary.BigEndian.PutUint64(header[8:], wt.SndSeqNum)
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return fmt.Errorf("GSSAPI: key type %d: %w", key.KeyType, err)
	}
	want, err := et.GetChecksumHash(key.KeyValue, append(append([]byte(nil), wt.Payload...), header...), keyusage.GSSAPI_ACCEPTOR_SEAL)
	if err != nil {
		return fmt.Errorf("GSSAPI: checksum: %w", err)
	}
	if !hmac.Equal(want, wt.CheckSum) {
		return errors.New("GSSAPI: the server's wrap token fails its checksum: it was not made with this context's key")
	}
	return nil
}

// gssChecksum is the authenticator checksum of a GSS-API context (RFC
// 4121 4.1.1): the length of the channel bindings' hash (16), the hash
// (zero: no channel bindings), then the context flags, little-endian.
func gssChecksum(contextFlags uint32) []byte {
	b := make([]byte, 24)
	binary.LittleEndian.PutUint32(b, 16)
	binary.LittleEndian.PutUint32(b[20:], contextFlags)
	return b
}

// gssMechToken frames a Kerberos message as a GSS-API token (RFC 2743
// 3.1): [APPLICATION 0] { mechanism OID, token id, message }.
func gssMechToken(id, body []byte) ([]byte, error) {
	oid, err := asn1.Marshal(krb5MechOID)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: mechanism OID: %w", err)
	}
	inner := append(append(oid, id...), body...)
	return asn1tools.AddASNAppTag(inner, 0), nil
}

// parseGSSMechToken undoes gssMechToken, checking the mechanism.
func parseGSSMechToken(b []byte) (id, body []byte, err error) {
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(b, &raw)
	if err != nil || raw.Class != asn1.ClassApplication || raw.Tag != 0 || len(rest) != 0 {
		return nil, nil, errors.New("GSSAPI: the server's token is not a GSS-API token")
	}
	var oid asn1.ObjectIdentifier
	inner, err := asn1.Unmarshal(raw.Bytes, &oid)
	if err != nil || !oid.Equal(krb5MechOID) {
		return nil, nil, errors.New("GSSAPI: the server's token is not of the Kerberos V5 mechanism")
	}
	if len(inner) < 2 {
		return nil, nil, errors.New("GSSAPI: the server's token has no token id")
	}
	return inner[:2], inner[2:], nil
}
