package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestConnectionNameInManagementAPI: amqp091-go's connection_name and its
// other client properties appear in GET /api/connections/ (trailing slash
// included, as amqp091-go's recovery tests ask) as client_properties and
// user_provided_name, the way those tests find their connection.
func TestConnectionNameInManagementAPI(t *testing.T) {
	srv := startServer(t)
	c, err := amqp.DialConfig("amqp://guest:guest@"+srv.AMQPAddr()+"/", amqp.Config{Properties: amqp.Table{"connection_name": "x"}})
	must(t, err)
	defer c.Close()
	dial(t, srv) // a second connection, without a name

	status, body := mgmtDo(t, srv.HTTPAddr(), http.MethodGet, "/api/connections/", "")
	if status != http.StatusOK {
		t.Fatalf("GET /api/connections/: %d %s", status, body)
	}
	var conns []struct {
		Name             string         `json:"name"`
		UserProvidedName *string        `json:"user_provided_name"`
		ClientProperties map[string]any `json:"client_properties"`
	}
	must(t, json.Unmarshal([]byte(body), &conns))
	named := 0
	for _, cj := range conns {
		caps, _ := cj.ClientProperties["capabilities"].(map[string]any)
		if caps["connection.blocked"] != true || caps["consumer_cancel_notify"] != true {
			t.Errorf("connection %s: capabilities %v", cj.Name, cj.ClientProperties["capabilities"])
		}
		if cj.ClientProperties["connection_name"] != "x" {
			// amqp.Dial's own properties.
			if cj.UserProvidedName != nil || cj.ClientProperties["platform"] != "golang" || cj.ClientProperties["product"] == nil {
				t.Errorf("unnamed connection %s: user_provided_name %v, client_properties %v", cj.Name, cj.UserProvidedName, cj.ClientProperties)
			}
			continue
		}
		named++
		if cj.UserProvidedName == nil || *cj.UserProvidedName != "x" {
			t.Errorf("named connection %s: user_provided_name %v, client_properties %v", cj.Name, cj.UserProvidedName, cj.ClientProperties)
		}
		status, one := mgmtDo(t, srv.HTTPAddr(), http.MethodGet, "/api/connections/"+url.PathEscape(cj.Name), "")
		var got struct {
			ClientProperties map[string]any `json:"client_properties"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(one), &got) != nil || got.ClientProperties["connection_name"] != "x" {
			t.Errorf("GET one connection: %d %s", status, one)
		}
	}
	if named != 1 || len(conns) != 2 {
		t.Fatalf("%d connections, %d named x: %s", len(conns), named, body)
	}
}
