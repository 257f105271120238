package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"warren/engine"
)

// userOp is one step of a users test: a change and the error text it must
// give ("" for success).
type userOp struct {
	do   func(b *engine.Broker) error
	want string
}

func putUser(name string, tags ...string) userOp {
	return userOp{do: func(b *engine.Broker) error {
		return b.PutUser(engine.User{Name: name, PasswordHash: "h-" + name, HashingAlgorithm: "sha256", Tags: tags})
	}}
}

func putPerm(user, vhost, c, w, r string) userOp {
	return userOp{do: func(b *engine.Broker) error {
		return b.PutUserPermission(engine.UserPermission{User: user, Vhost: vhost, Configure: c, Write: w, Read: r})
	}}
}

func putTopic(user, vhost, x, w, r string) userOp {
	return userOp{do: func(b *engine.Broker) error {
		return b.PutTopicPermission(engine.UserTopicPermission{User: user, Vhost: vhost, Exchange: x, Write: w, Read: r})
	}}
}

func fails(op userOp, want string) userOp { op.want = want; return op }

func op(f func(b *engine.Broker) error) userOp { return userOp{do: f} }

// dumpUsers renders the broker's users, permissions and topic permissions
// in the engine's listing order.
func dumpUsers(b *engine.Broker) string {
	var s strings.Builder
	for _, u := range b.Users() {
		fmt.Fprintf(&s, "user %s %s %s %v\n", u.Name, u.PasswordHash, u.HashingAlgorithm, u.Tags)
	}
	for _, p := range b.UserPermissions() {
		fmt.Fprintf(&s, "perm %s %s %q %q %q\n", p.User, p.Vhost, p.Configure, p.Write, p.Read)
	}
	for _, tp := range b.TopicPermissions() {
		fmt.Fprintf(&s, "topic %s %s %s %q %q\n", tp.User, tp.Vhost, tp.Exchange, tp.Write, tp.Read)
	}
	return s.String()
}

// TestUserRecords checks the engine's user and permission records: put,
// replace, delete, the cascades of deleting a user and a vhost, the errors,
// and that listings are sorted whatever the order of the changes.
func TestUserRecords(t *testing.T) {
	cases := []struct {
		name string
		ops  []userOp
		want string
	}{
		{"empty", nil, ""},
		{"put lists by name", []userOp{putUser("zed"), putUser("amy", "administrator"), putUser("bob")},
			"user amy h-amy sha256 [administrator]\nuser bob h-bob sha256 []\nuser zed h-zed sha256 []\n"},
		{"replace keeps permissions", []userOp{putUser("bob"), putPerm("bob", "/", ".*", "", ""), putUser("bob", "management")},
			"user bob h-bob sha256 [management]\nperm bob / \".*\" \"\" \"\"\n"},
		{"permissions by user then vhost", []userOp{putUser("b"), putUser("a"),
			putPerm("b", "v2", "1", "", ""), putPerm("b", "/", "2", "", ""), putPerm("a", "v2", "3", "", ""), putPerm("b", "v2", "4", "", "")},
			"user a h-a sha256 []\nuser b h-b sha256 []\nperm a v2 \"3\" \"\" \"\"\nperm b / \"2\" \"\" \"\"\nperm b v2 \"4\" \"\" \"\"\n"},
		{"topics by user vhost exchange", []userOp{putUser("a"), putTopic("a", "v", "x2", "w", "r"), putTopic("a", "/", "x", "", ""),
			putTopic("a", "v", "x1", "w", "r"), putTopic("a", "v", "x2", "w2", "r2")},
			"user a h-a sha256 []\ntopic a / x \"\" \"\"\ntopic a v x1 \"w\" \"r\"\ntopic a v x2 \"w2\" \"r2\"\n"},
		{"delete user cascades", []userOp{putUser("a"), putUser("b"), putPerm("a", "/", ".*", ".*", ".*"), putPerm("b", "/", "b", "", ""),
			putTopic("a", "/", "amq.topic", ".*", ".*"), op(func(b *engine.Broker) error { return b.DeleteUser("a") }), putUser("a")},
			"user a h-a sha256 []\nuser b h-b sha256 []\nperm b / \"b\" \"\" \"\"\n"},
		{"delete vhost cascades", []userOp{
			op(func(b *engine.Broker) error { return b.AddVhost("v") }),
			putUser("a"), putPerm("a", "/", "1", "", ""), putPerm("a", "v", "2", "", ""), putTopic("a", "v", "x", "", ""), putTopic("a", "/", "y", "", ""),
			op(func(b *engine.Broker) error { return b.DeleteVhost("v") }),
			op(func(b *engine.Broker) error { return b.AddVhost("v") })},
			"user a h-a sha256 []\nperm a / \"1\" \"\" \"\"\ntopic a / y \"\" \"\"\n"},
		{"clear", []userOp{putUser("a"), putPerm("a", "/", "1", "", ""), putPerm("a", "v", "2", "", ""),
			putTopic("a", "/", "x", "", ""), putTopic("a", "/", "y", "", ""), putTopic("a", "v", "x", "", ""),
			op(func(b *engine.Broker) error { return b.ClearUserPermission("a", "v") }),
			op(func(b *engine.Broker) error { return b.ClearTopicPermissions("a", "/", "x") }),
			op(func(b *engine.Broker) error { return b.ClearTopicPermissions("a", "/", "nope") }),
			op(func(b *engine.Broker) error { return b.ClearTopicPermissions("a", "v", "") })},
			"user a h-a sha256 []\nperm a / \"1\" \"\" \"\"\ntopic a / y \"\" \"\"\n"},
		{"errors change nothing", []userOp{
			fails(putUser(""), "PRECONDITION_FAILED - user name must not be empty"),
			fails(putUser(strings.Repeat("u", 256)), "PRECONDITION_FAILED - user name '"+strings.Repeat("u", 48)+"...' is 256 bytes long, more than the 255 an AMQP short string holds"),
			fails(putPerm("nobody", "/", "", "", ""), "NOT_FOUND - user 'nobody' not found"),
			fails(putTopic("nobody", "/", "x", "", ""), "NOT_FOUND - user 'nobody' not found"),
			putUser("a"),
			fails(putPerm("a", "/", "(", "", ""), "PRECONDITION_FAILED - invalid regexp '(': error parsing regexp: missing closing ): `(`"),
			fails(putTopic("a", "/", "x", "", "["), "PRECONDITION_FAILED - invalid regexp '[': error parsing regexp: missing closing ]: `[`"),
			fails(op(func(b *engine.Broker) error { return b.ClearUserPermission("a", "/") }), "NOT_FOUND - no permissions for user 'a' in vhost '/'"),
			fails(op(func(b *engine.Broker) error { return b.ClearTopicPermissions("a", "/", "") }), "NOT_FOUND - no topic permissions for user 'a' in vhost '/'"),
			fails(op(func(b *engine.Broker) error { return b.DeleteUser("nobody") }), "NOT_FOUND - user 'nobody' not found")},
			"user a h-a sha256 []\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := engine.New(engine.Config{Seed: 1})
			for i, o := range tc.ops {
				err := o.do(b)
				got := ""
				if err != nil {
					got = err.(*engine.Error).Text
				}
				if got != o.want {
					t.Fatalf("step %d: error %q, want %q", i, got, o.want)
				}
			}
			if got := dumpUsers(b); got != tc.want {
				t.Errorf("records:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestUserRecordsAreCopies checks that a listed record shares nothing with
// the engine's: a caller editing tags changes no state.
func TestUserRecordsAreCopies(t *testing.T) {
	b := engine.New(engine.Config{})
	tags := []string{"management"}
	if err := b.PutUser(engine.User{Name: "a", Tags: tags}); err != nil {
		t.Fatal(err)
	}
	tags[0] = "changed"
	u, _ := b.User("a")
	u.Tags[0] = "changed too"
	b.Users()[0].Tags[0] = "and again"
	if u, _ := b.User("a"); u.Tags[0] != "management" {
		t.Errorf("tags are %v", u.Tags)
	}
}

// TestUserChangesRegrant checks that a change of a user's permissions, topic
// permissions or impersonator tag reaches their open connections at once,
// and that an unrestricted connection stays so.
func TestUserChangesRegrant(t *testing.T) {
	b := permWorld(t)
	if err := b.PutUser(engine.User{Name: "bob"}); err != nil {
		t.Fatal(err)
	}
	open := func(perms *engine.Permissions) engine.ChannelID {
		conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "bob", Perms: perms})
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := b.OpenChannel(conn, 1)
		return ch
	}
	bob := open(b.UserGrants("bob", "/"))
	free := open(nil)
	declare := func(ch engine.ChannelID) string {
		// A redeclare, which needs configure (a passive declare needs
		// no permission).
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q", Args: engine.Table{"x-dead-letter-exchange": "dlx"}})
		if err != nil {
			return err.(*engine.Error).Text
		}
		return ""
	}
	publishAs := func(ch engine.ChannelID, userID string) string {
		err := b.BasicPublish(ch, engine.BasicPublish{Exchange: "t", RoutingKey: "a.b", Props: &engine.Properties{UserID: userID}})
		if err != nil {
			return err.(*engine.Error).Text
		}
		return ""
	}
	if got := declare(bob); got != "ACCESS_REFUSED - access to queue 'q' in vhost '/' refused for user 'bob'" {
		t.Fatalf("before any permission: %q", got)
	}
	bob = open(b.UserGrants("bob", "/"))
	if err := b.PutUserPermission(engine.UserPermission{User: "bob", Vhost: "/", Configure: ".*", Write: ".*", Read: ".*"}); err != nil {
		t.Fatal(err)
	}
	if got := declare(bob); got != "" {
		t.Errorf("after PutUserPermission: %q", got)
	}
	if err := b.PutTopicPermission(engine.UserTopicPermission{User: "bob", Vhost: "/", Exchange: "t", Write: "^x", Read: ".*"}); err != nil {
		t.Fatal(err)
	}
	if got := publishAs(bob, ""); got != "ACCESS_REFUSED - access to topic 'a.b' in exchange 't' in vhost '/' refused for user 'bob'" {
		t.Fatalf("after PutTopicPermission: %q", got)
	}
	bob = open(b.UserGrants("bob", "/"))
	if err := b.ClearTopicPermissions("bob", "/", ""); err != nil {
		t.Fatal(err)
	}
	if got := publishAs(bob, "alice"); got != "PRECONDITION_FAILED - user_id property set to 'alice' but authenticated user was 'bob'" {
		t.Fatalf("not an impersonator: %q", got)
	}
	bob = open(b.UserGrants("bob", "/"))
	if err := b.PutUser(engine.User{Name: "bob", Tags: []string{"impersonator"}}); err != nil {
		t.Fatal(err)
	}
	if got := publishAs(bob, "alice"); got != "" {
		t.Errorf("impersonator: %q", got)
	}
	if err := b.ClearUserPermission("bob", "/"); err != nil {
		t.Fatal(err)
	}
	if got := declare(bob); got != "ACCESS_REFUSED - access to queue 'q' in vhost '/' refused for user 'bob'" {
		t.Errorf("after ClearUserPermission: %q", got)
	}
	if got := declare(free); got != "" {
		t.Errorf("unrestricted connection: %q", got)
	}
}

// TestUserGrantsNeverNil: a user without permissions in a vhost, or no user
// at all, gets grants that allow nothing, never nil (which would allow
// everything).
func TestUserGrantsNeverNil(t *testing.T) {
	b := engine.New(engine.Config{})
	if err := b.PutUser(engine.User{Name: "imp", Tags: []string{"impersonator"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		user string
		want engine.Permissions
	}{{"imp", engine.Permissions{Impersonator: true}}, {"nobody", engine.Permissions{}}} {
		g := b.UserGrants(c.user, "/")
		if g == nil || g.Configure != "" || g.Write != "" || g.Read != "" || g.Topics != nil || g.Impersonator != c.want.Impersonator {
			t.Errorf("%s: %+v", c.user, g)
		}
	}
}
