package pgtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeCerts makes a CA (written to dir/ca.crt, for clients) and a server certificate it
// signs for localhost and hosts (written to data/server.crt and server.key).
func writeCerts(dir, data string, hosts []string) (string, error) {
	caKey, caCert, caDER, err := newCA("pgtest CA")
	if err != nil {
		return "", err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
	}
	for _, h := range hosts {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(h))
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return "", err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", err
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := writePEM(caFile, "CERTIFICATE", caDER, 0o644); err != nil {
		return "", err
	}
	if err := writePEM(filepath.Join(data, "server.crt"), "CERTIFICATE", der, 0o644); err != nil {
		return "", err
	}
	// postgres refuses a key file others may read.
	if err := writePEM(filepath.Join(data, "server.key"), "PRIVATE KEY", keyDER, 0o600); err != nil {
		return "", err
	}
	return caFile, nil
}

func newCA(name string) (*ecdsa.PrivateKey, *x509.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, der, err
}

// StrangerCA writes a CA that signed nothing of this server to a file in t's temp dir:
// a client trusting only it must find the server's certificate untrusted.
func StrangerCA(t testing.TB) string {
	t.Helper()
	_, _, der, err := newCA("stranger CA")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stranger.crt")
	if err := writePEM(path, "CERTIFICATE", der, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}
