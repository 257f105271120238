package auth

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"warren/engine"
	"warren/server/broker"
)

// newStore is the Store of a fresh broker, stopped when the test ends.
func newStore(t *testing.T) *Store {
	t.Helper()
	b := broker.Start(engine.Config{Seed: 1}, nil)
	t.Cleanup(b.Stop)
	s, err := NewStore(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// deleteVhost deletes a vhost in the engine, and tells the Store, as the
// management API does.
func deleteVhost(t *testing.T, s *Store, name string) {
	t.Helper()
	if _, err := s.b.ApplyOne(engine.CmdDeleteVhost{Name: name}); err != nil {
		t.Fatal(err)
	}
	if err := s.VhostDeleted(name); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultGuest(t *testing.T) {
	s := newStore(t)
	u, ok := s.Authenticate("guest", "guest")
	if !ok || !u.HasTag("administrator") {
		t.Fatalf("guest/guest: %+v %v", u, ok)
	}
	if _, ok := s.Authenticate("guest", "wrong"); ok {
		t.Error("wrong password accepted")
	}
	if _, ok := s.Authenticate("nobody", "guest"); ok {
		t.Error("unknown user accepted")
	}
	if !s.LoopbackOnly("guest") || s.LoopbackOnly("other") {
		t.Error("loopback_users should hold exactly guest")
	}
	if !s.CanAccessVhost("guest", "/") || s.CanAccessVhost("guest", "other") {
		t.Error("guest should have / only")
	}
	want := []Permission{{User: "guest", Vhost: "/", Configure: ".*", Write: ".*", Read: ".*"}}
	if got := s.Permissions(); !slices.Equal(got, want) {
		t.Errorf("permissions %+v", got)
	}
}

// TestRabbitHashFormat checks the hash against one RabbitMQ 3.10.8 made for
// guest/guest (GET /api/users/guest on a fresh node).
func TestRabbitHashFormat(t *testing.T) {
	s := newStore(t)
	err := s.PutUser(User{Name: "r", PasswordHash: "a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi", HashingAlgorithm: SHA256})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Authenticate("r", "guest"); !ok {
		t.Error("RabbitMQ's hash of guest not accepted")
	}
	if _, ok := s.Authenticate("r", "guesT"); ok {
		t.Error("wrong password accepted")
	}
	// A hash we make round-trips through PutUser.
	u, _ := s.User("guest")
	if err := s.PutUser(User{Name: "copy", PasswordHash: u.PasswordHash, HashingAlgorithm: u.HashingAlgorithm}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Authenticate("copy", "guest"); !ok {
		t.Error("exported hash does not authenticate")
	}
	for _, bad := range []User{
		{Name: "x", PasswordHash: "not base64!"},
		{Name: "x", PasswordHash: "AAAA"},
		{Name: "x", PasswordHash: "a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi", HashingAlgorithm: "rabbit_password_hashing_rot13"},
		{Name: ""},
	} {
		if err := s.PutUser(bad); err == nil {
			t.Errorf("PutUser(%+v) accepted", bad)
		}
	}
}

func TestUsersAndPermissions(t *testing.T) {
	s := newStore(t)
	if err := s.AddUser("app", "pw", []string{" management", "", "monitoring"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUser("app", "pw", nil); !errors.Is(err, ErrUserExists) {
		t.Errorf("duplicate add: %v", err)
	}
	if err := s.SetPermissions("nobody", "/", ".*", ".*", ".*"); !errors.Is(err, ErrNoUser) {
		t.Errorf("permissions for nobody: %v", err)
	}
	if err := s.SetPermissions("app", "/", "(", "", ""); err == nil {
		t.Error("bad regexp accepted")
	}
	if err := s.SetPermissions("app", "v1", "^app\\.", "", ".*"); err != nil {
		t.Fatal(err)
	}
	if !s.CanAccessVhost("app", "v1") || s.CanAccessVhost("app", "/") {
		t.Error("app's vhosts wrong")
	}
	for _, c := range []struct {
		a        Access
		resource string
		want     bool
	}{
		{Configure, "app.q", true},
		{Configure, "other", false},
		{Write, "app.q", false},
		{Write, "", true}, // the empty pattern still allows the default exchange
		{Read, "anything", true},
	} {
		if got := s.Allowed("app", "v1", c.a, c.resource); got != c.want {
			t.Errorf("Allowed(%v, %q) = %v", c.a, c.resource, got)
		}
	}
	u, _ := s.User("app")
	if !slices.Equal(u.Tags, []string{"management", "monitoring"}) {
		t.Errorf("tags %q", u.Tags)
	}
	if err := s.AddUser("nopw", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Authenticate("nopw", ""); ok {
		t.Error("a user without a password logged in")
	}
	names := []string{}
	for _, u := range s.Users() {
		names = append(names, u.Name)
	}
	if !slices.Equal(names, []string{"app", "guest", "nopw"}) {
		t.Errorf("users %v", names)
	}
	if err := s.ClearPermissions("app", "/"); !errors.Is(err, ErrNoPermission) {
		t.Errorf("clear missing: %v", err)
	}
	if err := s.DeleteUser("app"); err != nil {
		t.Fatal(err)
	}
	if s.CanAccessVhost("app", "v1") {
		t.Error("permissions survived their user")
	}
	if err := s.DeleteUser("app"); !errors.Is(err, ErrNoUser) {
		t.Errorf("second delete: %v", err)
	}
	deleteVhost(t, s, "/")
	if s.CanAccessVhost("guest", "/") {
		t.Error("deleting the vhost kept guest's permissions")
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.json")
	data := `{"users":[
	  {"name":"app","password":"s3cret","tags":["management"]},
	  {"name":"ops","password_hash":"a5EspB5+nrwsdaejuc54kehJSh8AP4012RqdSB4NHsGpyIBi","hashing_algorithm":"rabbit_password_hashing_sha256","tags":"administrator,monitoring"}],
	 "permissions":[{"user":"app","vhost":"/","configure":"","write":".*","read":".*"}],
	 "queues":[]}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	if err := s.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Authenticate("app", "s3cret"); !ok {
		t.Error("app cannot log in")
	}
	if u, ok := s.Authenticate("ops", "guest"); !ok || !slices.Equal(u.Tags, []string{"administrator", "monitoring"}) {
		t.Errorf("ops: %+v %v", u, ok)
	}
	if !s.CanAccessVhost("app", "/") || s.Allowed("app", "/", Configure, "q") {
		t.Error("app's permissions wrong")
	}

	bad := `{"users":[{"name":"x","password":"p"}],"permissions":[{"user":"ghost","vhost":"/","configure":".*","write":".*","read":".*"}]}`
	os.WriteFile(path, []byte(bad), 0o600)
	if err := s.LoadFile(path); err == nil {
		t.Error("permissions for an unknown user accepted")
	}
	if _, ok := s.User("x"); ok {
		t.Error("a failed import changed the store")
	}
	if err := s.LoadFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestConcurrentUse(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := string(rune('a' + i))
			for range 50 {
				s.AddUser(name, "pw", nil)
				s.SetPermissions(name, "/", ".*", ".*", ".*")
				s.Authenticate("guest", "guest")
				s.CanAccessVhost(name, "/")
				s.Users()
				s.DeleteUser(name)
			}
		}()
	}
	wg.Wait()
	if len(s.Users()) != 1 {
		t.Errorf("users left: %v", s.Users())
	}
}

// TestUserNamesAreShortStrings: a user name must fit an AMQP short string,
// whichever way the user is created.
func TestUserNamesAreShortStrings(t *testing.T) {
	s := newStore(t)
	long := strings.Repeat("u", 256)
	for _, c := range []struct {
		name, want string
	}{
		{long, "user name is 256 bytes long, more than the 255 an AMQP short string holds"},
		{"u\xff", "user name is not valid UTF-8"},
	} {
		if err := s.AddUser(c.name, "pw", nil); err == nil || err.Error() != c.want {
			t.Errorf("AddUser(%.8q...): %v, want %q", c.name, err, c.want)
		}
		if err := s.PutUser(User{Name: c.name}); err == nil || err.Error() != c.want {
			t.Errorf("PutUser(%.8q...): %v, want %q", c.name, err, c.want)
		}
		if err := s.Import(Definitions{Users: []UserDef{{Name: c.name, Tags: Tags{"administrator"}}}}); err == nil || err.Error() != c.want {
			t.Errorf("Import(%.8q...): %v, want %q", c.name, err, c.want)
		}
		if _, ok := s.User(c.name); ok {
			t.Errorf("user %.8q... exists", c.name)
		}
	}
	if err := s.AddUser(long[:255], "pw", nil); err != nil {
		t.Fatalf("255-byte name: %v", err)
	}
}
