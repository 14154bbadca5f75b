package sasl

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// GSSAPIAcceptor is the server side of SASL GSSAPI for a listener, as a
// Kafka broker's: it accepts service tickets for its principal (the
// listener's Krb5LoginModule keyTab and principal, e.g.
// kafka/kzadmind.example.com@EXAMPLE.COM) and authenticates the client as
// User:<short name>, the principal's first component when its realm is
// the default realm (Kafka's DEFAULT principal-to-local rule). Only
// authentication is negotiated, no security layer, as Kafka does.
type GSSAPIAcceptor struct {
	settings     *service.Settings
	defaultRealm string
}

// maxClockSkew is Kerberos' usual tolerance between client and server.
const maxClockSkew = 5 * time.Minute

// NewGSSAPIAcceptor reads the keytab of o (a keytab login: Keytab and
// Principal) and krb5.conf's default realm.
func NewGSSAPIAcceptor(o KerberosOptions) (*GSSAPIAcceptor, error) {
	if o.Keytab == "" || o.Principal == "" {
		return nil, errors.New("kerberos: a GSSAPI listener needs a keytab and its principal (useKeyTab=true, keyTab, principal)")
	}
	cfg, err := config.Load(o.Krb5Conf)
	if err != nil {
		return nil, fmt.Errorf("kerberos: read %s: %w", o.Krb5Conf, err)
	}
	kt, err := keytab.Load(o.Keytab)
	if err != nil {
		return nil, fmt.Errorf("kerberos: read keytab %s: %w", o.Keytab, err)
	}
	name, realm := splitPrincipal(o.Principal, cfg.LibDefaults.DefaultRealm)
	if !keytabHolds(kt, types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, name), realm) {
		return nil, fmt.Errorf("kerberos: keytab %s has no key for %s@%s", o.Keytab, name, realm)
	}
	return &GSSAPIAcceptor{
		// Only the listener's principal, as Java's acceptor takes only
		// the principal its login names, whatever else the keytab holds.
		settings: service.NewSettings(kt, service.MaxClockSkew(maxClockSkew), service.DecodePAC(false),
			service.KeytabPrincipal(name)),
		defaultRealm: cfg.LibDefaults.DefaultRealm,
	}, nil
}

// Start begins one exchange.
func (a *GSSAPIAcceptor) Start() wire.SASLExchange { return &gssapiServer{acceptor: a} }

// gssapiServer is one exchange: the AP-REQ, answered with an AP-REP when
// the client asked for mutual authentication (then an empty token from
// the client), the security-layer offer, and the client's choice.
type gssapiServer struct {
	acceptor *GSSAPIAcceptor
	step     int
	key      types.EncryptionKey // the context's key
	seq      uint64              // this side's first sequence number
	client   string              // name@REALM
	short    string
}

// refuse is a failed exchange as the client sees it.
func refuse(format string, args ...any) error {
	return &wire.SASLError{Message: "Authentication failed during authentication due to invalid credentials with SASL mechanism GSSAPI",
		Err: fmt.Errorf(format, args...)}
}

func (s *gssapiServer) Step(_ context.Context, token []byte) ([]byte, bool, error) {
	switch s.step {
	case 0:
		return s.accept(token)
	case 1:
		if len(token) != 0 {
			return nil, false, refuse("GSSAPI: a token of %d bytes after the AP-REP, where an empty one was due", len(token))
		}
		s.step = 2
		offer, err := s.offer()
		return offer, false, err
	case 2:
		if err := s.finish(token); err != nil {
			return nil, false, err
		}
		s.step = 3
		return nil, true, nil
	default:
		return nil, false, errors.New("GSSAPI: exchange already over")
	}
}

func (s *gssapiServer) Principal() wire.Principal { return wire.Principal{Type: "User", Name: s.short} }

// accept checks the client's AP-REQ (its ticket for this service, and
// its authenticator) and answers with the AP-REP or, without mutual
// authentication, the offer straight away, as Java's acceptor does.
func (s *gssapiServer) accept(token []byte) ([]byte, bool, error) {
	id, body, err := parseGSSMechToken(token)
	if err != nil {
		return nil, false, refuse("%v", err)
	}
	if !bytes.Equal(id, tokAPReq) {
		return nil, false, refuse("GSSAPI: the first token has id %x, not an AP-REQ", id)
	}
	var req messages.APReq
	if err := req.Unmarshal(body); err != nil {
		return nil, false, refuse("GSSAPI: AP-REQ: %v", err)
	}
	if ok, _, err := service.VerifyAPREQ(&req, s.acceptor.settings); !ok || err != nil {
		return nil, false, refuse("GSSAPI: AP-REQ refused: %v", err)
	}
	auth := req.Authenticator
	s.client = auth.CName.PrincipalNameString() + "@" + auth.CRealm
	if auth.CRealm != s.acceptor.defaultRealm || len(auth.CName.NameString) == 0 {
		// Kafka's DEFAULT rule maps the default realm's principals only.
		return nil, false, refuse("GSSAPI: no rule maps %s to a user name (the DEFAULT rule takes realm %s only)",
			s.client, s.acceptor.defaultRealm)
	}
	s.short = auth.CName.NameString[0]
	// RFC 4121: the initiator's subkey, when it sent one, keys the
	// context (this side sends none of its own).
	s.key = req.Ticket.DecryptedEncPart.Key
	if auth.SubKey.KeyType != 0 {
		s.key = auth.SubKey
	}
	var seq [4]byte
	if _, err := rand.Read(seq[:]); err != nil {
		return nil, false, err
	}
	s.seq = uint64(binary.BigEndian.Uint32(seq[:]) & 0x3fffffff)
	mutual := types.IsFlagSet(&req.APOptions, flags.APOptionMutualRequired)
	if cs := auth.Cksum.Checksum; len(cs) >= 24 && binary.LittleEndian.Uint32(cs[20:])&gssapi.ContextFlagMutual != 0 {
		mutual = true
	}
	if !mutual {
		// Without an AP-REP to carry this side's first sequence number,
		// it is the initiator's (RFC 4121 4.2.6.2); Java's client refuses
		// any other as a gap.
		s.seq = uint64(auth.SeqNumber)
		s.step = 2
		offer, err := s.offer()
		return offer, false, err
	}
	rep, err := apRepToken(auth, req.Ticket.DecryptedEncPart.Key, int64(s.seq))
	if err != nil {
		return nil, false, err
	}
	s.step = 1
	return rep, false, nil
}

// apRepToken is the AP-REP proving that this side opened the ticket: the
// authenticator's time under the ticket's session key.
func apRepToken(auth types.Authenticator, sessionKey types.EncryptionKey, seq int64) ([]byte, error) {
	part, err := asn1.Marshal(messages.EncAPRepPart{CTime: auth.CTime, Cusec: auth.Cusec, SequenceNumber: seq})
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	ed, err := crypto.GetEncryptedData(asn1tools.AddASNAppTag(part, 27), sessionKey, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	rep, err := asn1.Marshal(messages.APRep{PVNO: 5, MsgType: 15, EncPart: ed})
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: AP-REP: %w", err)
	}
	return gssMechToken(tokAPRep, asn1tools.AddASNAppTag(rep, 15))
}

// offer is the wrapped security-layer offer: no layer, and Java's default
// largest buffer (65536), which a client choosing no layer ignores.
func (s *gssapiServer) offer() ([]byte, error) {
	wt := &gssapi.WrapToken{Flags: wrapSentByAcceptor, SndSeqNum: s.seq, Payload: []byte{noSecurityLayer, 0x01, 0x00, 0x00}}
	et, err := crypto.GetEtype(s.key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("GSSAPI: key type %d: %w", s.key.KeyType, err)
	}
	wt.EC = uint16(et.GetHMACBitLength() / 8)
	if err := wt.SetCheckSum(s.key, keyusage.GSSAPI_ACCEPTOR_SEAL); err != nil {
		return nil, fmt.Errorf("GSSAPI: wrap the offer: %w", err)
	}
	return wt.Marshal()
}

// finish checks the client's wrapped choice: no security layer, and no
// authorization id but its own principal (Java's clients send it, and
// Kafka authorizes no other).
func (s *gssapiServer) finish(token []byte) error {
	var wt gssapi.WrapToken
	if err := wt.Unmarshal(token, false); err != nil {
		return refuse("GSSAPI: the client's reply: %v", err)
	}
	if wt.Flags&(wrapSealed|wrapAcceptorSubkey) != 0 {
		return refuse("GSSAPI: the client's reply has flags %#x (sealed, or an acceptor subkey this side never sent)", wt.Flags)
	}
	if ok, err := wt.Verify(s.key, keyusage.GSSAPI_INITIATOR_SEAL); !ok {
		return refuse("GSSAPI: the client's reply fails its checksum: %v", err)
	}
	if len(wt.Payload) < 4 || wt.Payload[0] != noSecurityLayer {
		return refuse("GSSAPI: the client chose security layer %x; only none is offered", wt.Payload)
	}
	if authz := string(wt.Payload[4:]); authz != "" && authz != s.client {
		return refuse("GSSAPI: %s may not act as %q", s.client, authz)
	}
	return nil
}
