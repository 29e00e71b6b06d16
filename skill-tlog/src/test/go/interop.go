// Independent verifier for GoInteropTest: checks Skillgate's signed notes, tlog-proof files and
// tlog-witness request bodies with the Go reference packages golang.org/x/mod/sumdb/note and
// golang.org/x/mod/sumdb/tlog (as packaged by Debian: golang-golang-x-mod-dev), and signs one note
// for the Java side to verify. It shares no code with Skillgate.
//
// Usage: interop DIR. DIR holds vkey, origin, and files *.note, *.tlog-proof, *.witness (with
// *.witness.old holding the old root in base64), *.bad-proof and *.bad-witness (must be refused),
// and skey + gotext (Go signs gotext into go.note). Prints one line per file; exits 1 on the first
// disagreement.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

func read(dir, name string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		fail("read %s: %v", name, err)
	}
	return b
}

type checkpoint struct {
	origin string
	size   int64
	root   tlog.Hash
}

func openCheckpoint(msg []byte, verifiers note.Verifiers, origin string) (checkpoint, error) {
	n, err := note.Open(msg, verifiers)
	if err != nil {
		return checkpoint{}, err
	}
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	if len(lines) < 3 {
		return checkpoint{}, fmt.Errorf("short checkpoint")
	}
	if lines[0] != origin {
		return checkpoint{}, fmt.Errorf("origin %q", lines[0])
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return checkpoint{}, err
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return checkpoint{}, err
	}
	return checkpoint{lines[0], size, root}, nil
}

// hashLines reads base64 hash lines up to a blank line and returns them and the rest.
func hashLines(r *bufio.Reader) ([]tlog.Hash, error) {
	var out []tlog.Hash
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return out, nil
		}
		h, err := tlog.ParseHash(line)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
}

func checkProof(b []byte, verifiers note.Verifiers, origin string) error {
	r := bufio.NewReader(bytes.NewReader(b))
	first, _ := r.ReadString('\n')
	if first != "c2sp.org/tlog-proof@v1\n" {
		return fmt.Errorf("header")
	}
	line, _ := r.ReadString('\n')
	var extra []byte
	if strings.HasPrefix(line, "extra ") {
		e, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(line[6:], "\n"))
		if err != nil {
			return err
		}
		extra = e
		line, _ = r.ReadString('\n')
	}
	if !strings.HasPrefix(line, "index ") {
		return fmt.Errorf("index line")
	}
	index, err := strconv.ParseInt(strings.TrimSuffix(line[6:], "\n"), 10, 64)
	if err != nil {
		return err
	}
	proof, err := hashLines(r)
	if err != nil {
		return err
	}
	rest := new(bytes.Buffer)
	rest.ReadFrom(r)
	cp, err := openCheckpoint(rest.Bytes(), verifiers, origin)
	if err != nil {
		return err
	}
	return tlog.CheckRecord(tlog.RecordProof(proof), cp.size, cp.root, index, tlog.RecordHash(extra))
}

func checkWitness(b []byte, oldRoot tlog.Hash, verifiers note.Verifiers, origin string) error {
	r := bufio.NewReader(bytes.NewReader(b))
	first, _ := r.ReadString('\n')
	if !strings.HasPrefix(first, "old ") {
		return fmt.Errorf("old line")
	}
	old, err := strconv.ParseInt(strings.TrimSuffix(first[4:], "\n"), 10, 64)
	if err != nil {
		return err
	}
	proof, err := hashLines(r)
	if err != nil {
		return err
	}
	rest := new(bytes.Buffer)
	rest.ReadFrom(r)
	cp, err := openCheckpoint(rest.Bytes(), verifiers, origin)
	if err != nil {
		return err
	}
	return tlog.CheckTree(tlog.TreeProof(proof), cp.size, cp.root, old, oldRoot)
}

func main() {
	dir := os.Args[1]
	v, err := note.NewVerifier(strings.TrimSpace(string(read(dir, "vkey"))))
	if err != nil {
		fail("vkey: %v", err)
	}
	verifiers := note.VerifierList(v)
	origin := strings.TrimSpace(string(read(dir, "origin")))
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, name := range names {
		b := read(dir, name)
		switch {
		case strings.HasSuffix(name, ".note"):
			if _, err := note.Open(b, verifiers); err != nil {
				fail("%s: %v", name, err)
			}
			fmt.Println("ok", name)
		case strings.HasSuffix(name, ".tlog-proof"):
			if err := checkProof(b, verifiers, origin); err != nil {
				fail("%s: %v", name, err)
			}
			fmt.Println("ok", name)
		case strings.HasSuffix(name, ".bad-proof"):
			if err := checkProof(b, verifiers, origin); err == nil {
				fail("%s: accepted", name)
			}
			fmt.Println("refused", name)
		case strings.HasSuffix(name, ".witness"), strings.HasSuffix(name, ".bad-witness"):
			oldRoot, err := tlog.ParseHash(strings.TrimSpace(string(read(dir, name+".old"))))
			if err != nil {
				fail("%s.old: %v", name, err)
			}
			err = checkWitness(b, oldRoot, verifiers, origin)
			if strings.HasSuffix(name, ".bad-witness") {
				if err == nil {
					fail("%s: accepted", name)
				}
				fmt.Println("refused", name)
			} else {
				if err != nil {
					fail("%s: %v", name, err)
				}
				fmt.Println("ok", name)
			}
		}
	}
	if skey, err := os.ReadFile(filepath.Join(dir, "skey")); err == nil {
		s, err := note.NewSigner(strings.TrimSpace(string(skey)))
		if err != nil {
			fail("skey: %v", err)
		}
		msg, err := note.Sign(&note.Note{Text: string(read(dir, "gotext"))}, s)
		if err != nil {
			fail("sign: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.signed"), msg, 0o600); err != nil {
			fail("write: %v", err)
		}
		fmt.Println("signed gotext")
	}
	fmt.Println("DONE")
}
