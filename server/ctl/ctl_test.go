package ctl_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/ctl"
	"warren/server/mgmt"
)

// server is a real broker behind the management API on a loopback
// httptest server: what `warren ctl` talks to in production.
type server struct {
	t     *testing.T
	b     *broker.Broker
	users *auth.Store
	addr  string
}

func newServer(t *testing.T) *server {
	t.Helper()
	b := broker.Start(engine.Config{Seed: 1}, nil)
	users, err := auth.NewStore(b)
	if err != nil {
		b.Stop()
		t.Fatal(err)
	}
	return serve(t, b, users)
}

// serve puts the management API of b in front of an httptest server.
func serve(t *testing.T, b *broker.Broker, users *auth.Store) *server {
	t.Helper()
	s := &server{t: t, b: b, users: users}
	hs := httptest.NewServer(mgmt.New(s.b, s.users, mgmt.Options{}))
	t.Cleanup(func() {
		hs.Close()
		s.b.Stop()
	})
	s.addr = strings.TrimPrefix(hs.URL, "http://")
	return s
}

// grants is what a connection of user's to vhost is checked against: the
// engine's grants from its user records.
func (s *server) grants(user, vhost string) *engine.Permissions {
	return s.b.Reader(nil).UserGrants(user, vhost)
}

type result struct {
	stdout, stderr string
	code           int
}

// ctl runs `warren ctl --http ADDR args...` with stdin.
func (s *server) ctlIn(stdin string, args ...string) result {
	s.t.Helper()
	var out, errb strings.Builder
	code := ctl.Main(append([]string{"--http", s.addr}, args...), strings.NewReader(stdin), &out, &errb)
	return result{out.String(), errb.String(), code}
}

func (s *server) ctl(args ...string) result {
	s.t.Helper()
	return s.ctlIn("", args...)
}

// expect checks a run's whole output and status.
func (s *server) expect(r result, code int, stdout, stderr string) {
	s.t.Helper()
	if r.code != code || r.stdout != stdout || r.stderr != stderr {
		s.t.Errorf("got status %d\nstdout:\n%s\nstderr:\n%s\nwant status %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr, code, stdout, stderr)
	}
}

// client opens a connection of guest's and its channel 1, as a client
// would.
func (s *server) client(vhost, name string) engine.ChannelID {
	s.t.Helper()
	r, err := s.b.ApplyOne(engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: vhost, User: "guest", Name: name}})
	if err != nil {
		s.t.Fatal(err)
	}
	if r, err = s.b.ApplyOne(engine.CmdOpenChannel{Conn: r.Conn, Num: 1}); err != nil {
		s.t.Fatal(err)
	}
	return r.Channel
}

// apply applies cmds, each of which must succeed.
func (s *server) apply(cmds ...engine.Command) {
	s.t.Helper()
	res, err := s.b.Apply(cmds, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil {
			s.t.Fatalf("%s: %v", engine.KindOf(cmds[i]), r.Err)
		}
	}
}

// publish sends bodies to a queue through the default exchange.
func (s *server) publish(vhost, queue string, bodies ...string) {
	s.t.Helper()
	ch := s.client(vhost, "publisher")
	var cmds []engine.Command
	for _, b := range bodies {
		cmds = append(cmds, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: queue, Body: []byte(b)}})
	}
	s.apply(append(cmds, engine.CmdCloseConnection{Conn: ch.Conn})...)
}

// declare declares a queue the way a client would.
func (s *server) declare(vhost string, d engine.QueueDeclare) {
	s.t.Helper()
	ch := s.client(vhost, "declarer")
	s.apply(engine.CmdQueueDeclare{Channel: ch, Declare: d}, engine.CmdCloseConnection{Conn: ch.Conn})
}

// The expected outputs below follow rabbitmqctl 3.10.8's, captured on the
// same commands against a real RabbitMQ.

func TestPolicies(t *testing.T) {
	s := newServer(t)
	s.expect(s.ctl("set_policy", "TTL", ".*", `{"message-ttl":60000}`, "--apply-to", "queues"), 0,
		`Setting policy "TTL" for pattern ".*" to "{"message-ttl":60000}" with priority "0" for vhost "/" ...`+"\n", "")
	s.expect(s.ctl("set_policy", "-p", "/", "--priority", "5", "TTL2", "^z", `{"max-length":10}`), 0,
		`Setting policy "TTL2" for pattern "^z" to "{"max-length":10}" with priority "5" for vhost "/" ...`+"\n", "")
	s.expect(s.ctl("list_policies"), 0, `Listing policies for vhost "/" ...
vhost	name	pattern	apply-to	definition	priority
/	TTL	.*	queues	{"message-ttl":60000}	0
/	TTL2	^z	all	{"max-length":10}	5
`, "")
	s.expect(s.ctl("set_policy", "BAD", ".*", `{"message-ttl":-1}`), 69,
		`Setting policy "BAD" for pattern ".*" to "{"message-ttl":-1}" with priority "0" for vhost "/" ...`+"\n",
		"Error:\nValidation failed\n\n-1 is not a valid message TTL\n\n")
	s.expect(s.ctl("-q", "set_policy", "BAD", ".*", `{"foo":1}`), 69, "",
		"Error:\nValidation failed\n\n[{<<\"foo\">>,1}] are not recognised policy settings\n\n")
	s.expect(s.ctl("-q", "set_policy", "BAD", ".*", `notjson`), 69, "", "Error:\nJSON decoding error. Reason: badarg\n")
	s.expect(s.ctl("-q", "set_policy", "-p", "nosuchvh", "BAD", ".*", `{"message-ttl":1}`), 65, "", "Virtual host 'nosuchvh' does not exist\n")
	s.expect(s.ctl("list_policies", "-p", "nosuchvh"), 65, `Listing policies for vhost "nosuchvh" ...`+"\n", "Virtual host 'nosuchvh' does not exist\n")

	s.expect(s.ctl("clear_policy", "TTL"), 0, `Clearing policy "TTL" on vhost "/" ...`+"\n", "")
	s.expect(s.ctl("clear_policy", "TTL"), 69, `Clearing policy "TTL" on vhost "/" ...`+"\n", "Error:\nParameter does not exist\n")

	s.expect(s.ctl("set_operator_policy", "OP", ".*", `{"max-length":100}`, "--apply-to", "queues"), 0,
		`Setting operator policy override "OP" for pattern ".*" to "{"max-length":100}" with priority "0" for vhost "/" ...`+"\n", "")
	s.expect(s.ctl("list_operator_policies"), 0, `Listing operator policy overrides for vhost "/" ...
vhost	name	pattern	apply-to	definition	priority
/	OP	.*	queues	{"max-length":100}	0
`, "")
	s.expect(s.ctl("-q", "set_operator_policy", "OPB", ".*", `{"dead-letter-exchange":"x"}`), 69, "",
		"Error:\nValidation failed\n\n[{<<\"dead-letter-exchange\">>,<<\"x\">>}] are not recognised policy settings\n\n")
	s.expect(s.ctl("clear_operator_policy", "OP"), 0, `Clearing operator policy "OP" on vhost "/" ...`+"\n", "")
}

// TestPolicyTakesEffect shows set_policy changing a queue that already
// holds messages: max-length drops from the head.
func TestPolicyTakesEffect(t *testing.T) {
	s := newServer(t)
	s.declare("/", engine.QueueDeclare{Queue: "q"})
	s.publish("/", "q", "1", "2", "3", "4")
	s.expect(s.ctl("-q", "set_policy", "cap", "^q$", `{"max-length":1}`), 0, "", "")
	s.expect(s.ctl("list_queues", "-q", "name", "messages", "policy"), 0, "name\tmessages\tpolicy\nq\t1\tcap\n", "")
}

func TestListQueues(t *testing.T) {
	s := newServer(t)
	s.expect(s.ctl("list_queues"), 0, "Timeout: 60.0 seconds ...\nListing queues for vhost / ...\n", "")
	s.declare("/", engine.QueueDeclare{Queue: "q1", Durable: true, Args: engine.Table{"x-max-length": int64(10)}})
	s.declare("/", engine.QueueDeclare{Queue: "q2", AutoDelete: true, Args: engine.Table{"x-dead-letter-exchange": "dlx", "x-message-ttl": int64(5000), "x-single-active-consumer": true}})
	s.publish("/", "q1", "hello")
	s.expect(s.ctl("list_queues"), 0, "Timeout: 60.0 seconds ...\nListing queues for vhost / ...\nname\tmessages\nq1\t1\nq2\t0\n", "")
	s.expect(s.ctl("list_queues", "name", "messages", "consumers", "arguments"), 0, `Timeout: 60.0 seconds ...
Listing queues for vhost / ...
name	messages	consumers	arguments
q1	1	0	[{"x-max-length",10}]
q2	0	0	[{"x-dead-letter-exchange","dlx"},{"x-message-ttl",5000},{"x-single-active-consumer",true}]
`, "")
	s.expect(s.ctl("list_queues", "-q", "name,durable,auto_delete,type"), 0, "name\tdurable\tauto_delete\ttype\nq1\ttrue\tfalse\tclassic\nq2\tfalse\ttrue\tclassic\n", "")
	s.expect(s.ctl("list_queues", "-t", "5", "--no-table-headers", "name"), 0, "Timeout: 5.0 seconds ...\nListing queues for vhost / ...\nq1\nq2\n", "")
	s.expect(s.ctl("list_queues", "-s"), 0, "q1\t1\nq2\t0\n", "")
	s.expect(s.ctl("list_queues", "-p", "nosuchvh"), 0, "Timeout: 60.0 seconds ...\nListing queues for vhost nosuchvh ...\n", "")
	r := s.ctl("list_queues", "name", "bogus", "memory2")
	if r.code != 64 || !strings.HasPrefix(r.stderr, "Error (argument validation): Info key(s) bogus,memory2 are not supported\nArguments given:\n\t--http ") {
		t.Errorf("bad column: %d %q", r.code, r.stderr)
	}
}

func TestListTopologyAndClients(t *testing.T) {
	s := newServer(t)
	s.declare("/", engine.QueueDeclare{Queue: "q1"})
	ch := s.client("/", "127.0.0.1:39666 -> 127.0.0.1:5672")
	s.apply(engine.CmdExchangeDeclare{Channel: ch, Declare: engine.ExchangeDeclare{Exchange: "x1", Type: "topic", Durable: true}},
		engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Exchange: "x1", Queue: "q1", RoutingKey: "a.#"}},
		engine.CmdExchangeBind{Channel: ch, Bind: engine.ExchangeBind{Source: "x1", Destination: "amq.fanout", RoutingKey: "k", Args: engine.Table{"a": "b", "n": int64(1)}}},
		engine.CmdBasicQos{Channel: ch, Qos: engine.BasicQos{PrefetchCount: 7}},
		engine.CmdBasicConsume{Channel: ch, Consume: engine.BasicConsume{Queue: "q1", ConsumerTag: "ctag1", Args: engine.Table{"x-priority": int64(3)}}})
	s.publish("/", "q1", "m")
	s.expect(s.ctl("list_exchanges"), 0, "Listing exchanges for vhost / ...\nname\ttype\n\tdirect\namq.direct\tdirect\namq.fanout\tfanout\n"+
		"amq.headers\theaders\namq.match\theaders\namq.rabbitmq.trace\ttopic\namq.topic\ttopic\nx1\ttopic\n", "")
	s.expect(s.ctl("list_exchanges", "-q", "name", "durable", "internal", "arguments"), 0, "name\tdurable\tinternal\targuments\n\ttrue\tfalse\t[]\n"+
		"amq.direct\ttrue\tfalse\t[]\namq.fanout\ttrue\tfalse\t[]\namq.headers\ttrue\tfalse\t[]\namq.match\ttrue\tfalse\t[]\n"+
		"amq.rabbitmq.trace\ttrue\ttrue\t[]\namq.topic\ttrue\tfalse\t[]\nx1\ttrue\tfalse\t[]\n", "")
	s.expect(s.ctl("list_bindings"), 0, `Listing bindings for vhost /...
source_name	source_kind	destination_name	destination_kind	routing_key	arguments
	exchange	q1	queue	q1	[]
x1	exchange	amq.fanout	exchange	k	[{"a","b"},{"n",1}]
x1	exchange	q1	queue	a.#	[]
`, "")
	s.expect(s.ctl("list_connections"), 0, "Listing connections ...\nuser\tpeer_host\tpeer_port\tstate\nguest\t127.0.0.1\t39666\trunning\n", "")
	s.expect(s.ctl("list_connections", "name", "user", "vhost", "channels"), 0,
		"Listing connections ...\nname\tuser\tvhost\tchannels\n127.0.0.1:39666 -> 127.0.0.1:5672\tguest\t/\t1\n", "")
	s.expect(s.ctl("list_consumers"), 0, `Listing consumers in vhost / ...
queue_name	channel_pid	consumer_tag	ack_required	prefetch_count	active	arguments
q1	<127.0.0.1:39666 -> 127.0.0.1:5672 (1)>	ctag1	true	7	true	[{"x-priority",3}]
`, "")
	s.expect(s.ctl("list_channels"), 0, "Listing channels ...\npid\tuser\tconsumer_count\tmessages_unacknowledged\n<127.0.0.1:39666 -> 127.0.0.1:5672 (1)>\tguest\t1\t1\n", "")
}

func TestVhostsUsersPermissions(t *testing.T) {
	s := newServer(t)
	s.expect(s.ctl("add_vhost", "v1"), 0, `Adding vhost "v1" ...`+"\n", "")
	s.expect(s.ctl("add_vhost", "v1"), 0, `Adding vhost "v1" ...`+"\n", "")
	s.expect(s.ctl("list_vhosts"), 0, "Listing vhosts ...\nname\n/\nv1\n", "")
	s.expect(s.ctl("-q", "list_vhosts", "name", "tracing", "description", "tags"), 0, "name\ttracing\tdescription\ttags\n/\tfalse\tDefault virtual host\t[]\nv1\tfalse\t\t[]\n", "")
	s.expect(s.ctl("add_user", "app", "pw1"), 0, `Adding user "app" ...`+"\nDone. Don't forget to grant the user permissions to some virtual hosts! See 'warren ctl help set_permissions' to learn more.\n", "")
	s.expect(s.ctl("add_user", "app", "pw1"), 70, `Adding user "app" ...`+"\n", "Error:\nUser \"app\" already exists\n")
	if _, ok := s.users.Authenticate("app", "pw1"); !ok {
		t.Error("app cannot authenticate")
	}
	s.expect(s.ctl("set_permissions", "-p", "v1", "app", ".*", "", ".*"), 0, `Setting permissions for user "app" in vhost "v1" ...`+"\n", "")
	if !s.users.CanAccessVhost("app", "v1") {
		t.Error("permissions not set")
	}
	s.expect(s.ctl("set_permissions", "-p", "v1", "nouser", ".*", "", ".*"), 67, `Setting permissions for user "nouser" in vhost "v1" ...`+"\n", "Error:\nUser nouser does not exist\n")
	s.expect(s.ctl("set_permissions", "-p", "novh", "app", ".*", "", ".*"), 69, `Setting permissions for user "app" in vhost "novh" ...`+"\n", "Error:\nVirtual host novh does not exist\n")
	s.expect(s.ctl("list_permissions", "-p", "v1"), 0, "Listing permissions for vhost \"v1\" ...\nuser\tconfigure\twrite\tread\napp\t.*\t\t.*\nguest\t.*\t.*\t.*\n", "")
	s.users.PutUser(auth.User{Name: "ops", Tags: []string{"administrator", "monitoring"}})
	s.expect(s.ctl("list_users"), 0, "Listing users ...\nuser\ttags\napp\t[]\nguest\t[administrator]\nops\t[administrator, monitoring]\n", "")
	s.expect(s.ctl("delete_user", "app"), 0, `Deleting user "app" ...`+"\n", "")
	s.expect(s.ctl("delete_user", "app"), 67, `Deleting user "app" ...`+"\n", "Error:\nUser \"app\" does not exist\n")
	s.expect(s.ctl("delete_vhost", "v1"), 0, `Deleting vhost "v1" ...`+"\n", "")
	s.expect(s.ctl("delete_vhost", "v1"), 65, `Deleting vhost "v1" ...`+"\n", "Virtual host 'v1' does not exist\n")
}

func TestPurgeAndDeleteQueue(t *testing.T) {
	s := newServer(t)
	s.declare("/", engine.QueueDeclare{Queue: "q"})
	s.publish("/", "q", "a", "b", "c")
	s.expect(s.ctl("delete_queue", "q", "--if-empty"), 64, "Deleting queue 'q' on vhost '/' if queue is empty ...\n", "Error:\nQueue is not empty\n")
	s.expect(s.ctl("delete_queue", "nope", "-e", "-u"), 64, "Deleting queue 'nope' on vhost '/' if queue is empty and if queue is unused ...\n", "Error:\nQueue not found\n")
	s.expect(s.ctl("delete_queue", "q"), 0, "Deleting queue 'q' on vhost '/' ...\nQueue was successfully deleted with 3 ready messages\n", "")
	s.declare("/", engine.QueueDeclare{Queue: "q"})
	s.publish("/", "q", "a")
	s.expect(s.ctl("purge_queue", "q"), 0, "Purging queue 'q' in vhost '/' ...\n", "")
	s.expect(s.ctl("-q", "list_queues"), 0, "name\tmessages\nq\t0\n", "")
	s.expect(s.ctl("purge_queue", "nope"), 69, "Purging queue 'nope' in vhost '/' ...\n", "Error:\nnot_found\n")
	s.expect(s.ctl("delete_queue", "q", "-u"), 0, "Deleting queue 'q' on vhost '/' if queue is unused ...\nQueue was successfully deleted with 0 ready messages\n", "")
}

func TestDefinitions(t *testing.T) {
	a := newServer(t)
	a.ctl("add_vhost", "v1")
	a.ctl("-p", "v1", "set_policy", "ttl", "^app", `{"message-ttl":1000}`, "--apply-to", "queues")
	a.declare("v1", engine.QueueDeclare{Queue: "app.q", Durable: true, Args: engine.Table{"x-max-length": int64(3)}})

	out := a.ctl("export_definitions", "-")
	if out.code != 0 || out.stderr != "" || !strings.HasPrefix(out.stdout, `{"bindings":[],"exchanges":[],"global_parameters":[]`) ||
		strings.HasSuffix(out.stdout, "\n") || !strings.Contains(out.stdout, `"arguments":{"x-max-length":3}`) {
		t.Fatalf("export to stdout: %+v", out)
	}
	file := filepath.Join(t.TempDir(), "defs.json")
	a.expect(a.ctl("export_definitions", file), 0, `Exporting definitions in JSON to a file at "`+file+`" ...`+"\n", "")
	data, err := os.ReadFile(file)
	if err != nil || string(data) != out.stdout {
		t.Fatalf("file %q, err %v", data, err)
	}
	bad := a.ctl("export_definitions", "/nonexistent-dir/x.json")
	if bad.code != 65 || !strings.HasPrefix(bad.stderr, "Error (argument validation): Bad argument: Directory /nonexistent-dir does not exist\n") {
		t.Errorf("bad directory: %+v", bad)
	}

	b := newServer(t)
	b.expect(b.ctl("import_definitions", file), 0, `Importing definitions in JSON from a file at "`+file+`" ...`+"\nSuccessfully imported definitions.\n", "")
	b.expect(b.ctl("-q", "-p", "v1", "list_queues", "name", "arguments", "policy"), 0, "name\targuments\tpolicy\napp.q\t[{\"x-max-length\",3}]\tttl\n", "")
	if again := b.ctl("export_definitions", "-"); again.stdout != out.stdout {
		t.Errorf("round trip differs:\n%s\n%s", out.stdout, again.stdout)
	}
	c := newServer(t)
	c.expect(c.ctlIn(out.stdout, "import_definitions", "-"), 0, "Importing definitions in JSON from standard input ...\nSuccessfully imported definitions.\n", "")
	c.expect(c.ctlIn("{bad", "-q", "import_definitions", "-"), 65, "", "Error:\nFailed to deserialise input (format: JSON) (error: invalid character 'b' looking for beginning of object key string)\n")
	missing := c.ctl("import_definitions", "/nonexistent.json")
	if missing.code != 65 || !strings.HasPrefix(missing.stderr, "Error (argument validation): Bad argument: File /nonexistent.json does not exist\n") {
		t.Errorf("missing file: %+v", missing)
	}
}

func TestUsageAndConnectionErrors(t *testing.T) {
	s := newServer(t)
	r := s.ctl("frobnicate")
	if r.code != 64 || !strings.HasPrefix(r.stderr, "\nCommand 'frobnicate' not found. \n\nUsage\n\n") || !strings.Contains(r.stderr, "   set_policy ") {
		t.Errorf("unknown command: %+v", r)
	}
	r = s.ctl("set_policy", "onlyname")
	want := "Error (argument validation): not enough arguments.\nArguments given:\n\t--http " + s.addr + " set_policy onlyname\n\nUsage\n\n" +
		"warren ctl [--http <address> | --url <url>] [--username <user>] [--password <password>] [--quiet] set_policy [--vhost <vhost>] [--priority <priority>] [--apply-to <apply-to>] <name> <pattern> <definition>\n"
	s.expect(r, 64, "", want)
	if r := s.ctl("add_vhost", "a", "b"); r.code != 64 || !strings.HasPrefix(r.stderr, "Error (argument validation): too many arguments.\n") {
		t.Errorf("too many: %+v", r)
	}
	if r := s.ctl("list_queues", "--bogus"); r.code != 64 || !strings.HasPrefix(r.stderr, "Error (argument validation): Invalid options for this command:\n--bogus : \n") {
		t.Errorf("bad option: %+v", r)
	}
	if r := s.ctl("set_policy", "X", ".*", `{"max-length":1}`, "--priority", "abc"); r.code != 64 || !strings.HasPrefix(r.stderr, "Error (argument validation): Invalid options for this command:\n--priority : abc\n") {
		t.Errorf("bad priority: %+v", r)
	}
	if r := s.ctl("list_queues", "--apply-to", "queues"); r.code != 64 || !strings.Contains(r.stderr, "--apply-to : ") {
		t.Errorf("option of another command: %+v", r)
	}
	if r := s.ctl("--help", "set_policy"); r.code != 0 || !strings.HasPrefix(r.stdout, "Usage\n\nwarren ctl ") {
		t.Errorf("help: %+v", r)
	}

	r = s.ctl("--username", "guest", "--password", "wrong", "list_queues")
	if r.code != 77 || !strings.HasSuffix(r.stderr, "Error:\nLogin failed (as user \"guest\"; see --username and --password)\n") {
		t.Errorf("wrong password: %+v", r)
	}

	// Nothing listens on port 1 of the loopback address.
	var out, errb strings.Builder
	code := ctl.Main([]string{"--http", "127.0.0.1:1", "list_queues"}, strings.NewReader(""), &out, &errb)
	if code != 69 || !strings.HasPrefix(errb.String(), "Error: unable to perform an operation on http://127.0.0.1:1. Please see diagnostics information and suggestions below.\n") {
		t.Errorf("unreachable: %d %q", code, errb.String())
	}
}

// TestTopicPermissionsCommands checks set_topic_permissions and
// list_topic_permissions against rabbitmqctl 3.10.8's output and exit codes.
func TestTopicPermissionsCommands(t *testing.T) {
	s := newServer(t)
	s.expect(s.ctl("add_user", "app", "pw1"), 0, `Adding user "app" ...`+"\nDone. Don't forget to grant the user permissions to some virtual hosts! See 'warren ctl help set_permissions' to learn more.\n", "")
	s.expect(s.ctl("set_topic_permissions", "app", "amq.topic", "^{username}\\.", ".*"), 0, `Setting topic permissions on "amq.topic" for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("set_topic_permissions", "-p", "/", "app", "events", "^w", "^r"), 0, `Setting topic permissions on "events" for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("set_topic_permissions", "nouser", "events", "^w", "^r"), 67, `Setting topic permissions on "events" for user "nouser" in vhost "/" ...`+"\n", "Error:\nUser nouser does not exist\n")
	s.expect(s.ctl("set_topic_permissions", "-p", "novh", "app", "events", "^w", "^r"), 69, `Setting topic permissions on "events" for user "app" in vhost "novh" ...`+"\n", "Error:\nVirtual host novh does not exist\n")
	s.expect(s.ctl("list_topic_permissions"), 0, "Listing topic permissions for vhost \"/\" ...\nuser\texchange\twrite\tread\napp\tamq.topic\t^{username}\\.\t.*\napp\tevents\t^w\t^r\n", "")
	s.expect(s.ctl("list_topic_permissions", "-p", "novh"), 65, "Listing topic permissions for vhost \"novh\" ...\n", "Virtual host 'novh' does not exist\n")
	g := s.grants("app", "/")
	if len(g.Topics) != 2 {
		t.Errorf("grants %+v", g)
	}
}

// TestClearPermissionsCommands checks clear_permissions and
// clear_topic_permissions against rabbitmqctl 3.10.8's output and exit
// codes: clearing what is not there succeeds, an unknown user is 67 and an
// unknown vhost 69.
func TestClearPermissionsCommands(t *testing.T) {
	s := newServer(t)
	s.expect(s.ctl("add_user", "app", "pw1"), 0, `Adding user "app" ...`+"\nDone. Don't forget to grant the user permissions to some virtual hosts! See 'warren ctl help set_permissions' to learn more.\n", "")
	s.expect(s.ctl("set_permissions", "app", ".*", ".*", ".*"), 0, `Setting permissions for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("set_topic_permissions", "app", "amq.topic", "^a", "^b"), 0, `Setting topic permissions on "amq.topic" for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("set_topic_permissions", "app", "events", "^a", "^b"), 0, `Setting topic permissions on "events" for user "app" in vhost "/" ...`+"\n", "")

	s.expect(s.ctl("clear_permissions", "app"), 0, `Clearing permissions for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("clear_permissions", "app"), 0, `Clearing permissions for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("clear_permissions", "nouser"), 67, `Clearing permissions for user "nouser" in vhost "/" ...`+"\n", "Error:\nUser nouser does not exist\n")
	s.expect(s.ctl("clear_permissions", "-p", "novh", "app"), 69, `Clearing permissions for user "app" in vhost "novh" ...`+"\n", "Error:\nVirtual host novh does not exist\n")
	if g := s.grants("app", "/"); g.Configure != "" || g.Write != "" || g.Read != "" {
		t.Errorf("after clear_permissions: %+v", g)
	}

	s.expect(s.ctl("clear_topic_permissions", "app", "amq.topic"), 0, `Clearing topic permissions on "amq.topic" for user "app" in vhost "/" ...`+"\n", "")
	if g := s.grants("app", "/"); len(g.Topics) != 1 {
		t.Errorf("after clearing amq.topic's: %+v", g)
	}
	s.expect(s.ctl("clear_topic_permissions", "app"), 0, `Clearing topic permissions for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("clear_topic_permissions", "app", "amq.topic"), 0, `Clearing topic permissions on "amq.topic" for user "app" in vhost "/" ...`+"\n", "")
	s.expect(s.ctl("clear_topic_permissions", "nouser"), 67, `Clearing topic permissions for user "nouser" in vhost "/" ...`+"\n", "Error:\nUser nouser does not exist\n")
	s.expect(s.ctl("clear_topic_permissions", "-p", "novh", "app"), 69, `Clearing topic permissions for user "app" in vhost "novh" ...`+"\n", "Error:\nVirtual host novh does not exist\n")
	if g := s.grants("app", "/"); len(g.Topics) != 0 {
		t.Errorf("after clear_topic_permissions: %+v", g)
	}
}

// TestURL: --url names the server with its scheme, and the credentials
// in it are used unless --username or --password say otherwise; a URL
// that is not one of a server, or --url with --http, is a usage error.
func TestURL(t *testing.T) {
	s := newServer(t)
	run := func(args ...string) result {
		var out, errb strings.Builder
		code := ctl.Main(args, strings.NewReader(""), &out, &errb)
		return result{out.String(), errb.String(), code}
	}
	vhosts := "Listing vhosts ...\nname\n/\n"
	s.expect(run("--url", "http://guest:guest@"+s.addr+"/", "list_vhosts"), 0, vhosts, "")
	s.expect(run("--url", "http://"+s.addr, "list_vhosts"), 0, vhosts, "") // guest by default, as with --http
	s.expect(run("--url", "http://guest:wrong@"+s.addr, "--password", "guest", "list_vhosts"), 0, vhosts, "")
	if r := run("--url", "http://guest:wrong@"+s.addr, "list_vhosts"); r.code != 77 || !strings.Contains(r.stderr, "Login failed") {
		t.Errorf("the URL's wrong password: %+v", r)
	}
	for _, bad := range [][]string{
		{"--url", "ftp://" + s.addr, "list_vhosts"},
		{"--url", "http://" + s.addr + "/api", "list_vhosts"},
		{"--url", "http://" + s.addr, "--http", s.addr, "list_vhosts"},
	} {
		if r := run(bad...); r.code != 64 || !strings.Contains(r.stderr, "--url : ") {
			t.Errorf("%q: %+v", bad, r)
		}
	}
}
