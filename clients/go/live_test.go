package platformapi

// The Go client against a running service (the demo data), as `npm test` starts it: test/clients/goClient.test.ts.
// PLATFORM_API_URL and PLATFORM_API_TOKEN (ada, an admin of Acme) say where; PLATFORM_API_COLLABORATOR_TOKEN is
// linus's (a collaborator), PLATFORM_API_LIMITED_URL a second service whose limit is 3 requests a minute. Without
// PLATFORM_API_URL these tests are skipped.

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// The demo data's well-known ids (db/demo/fixtures.ts), by the name of the path parameter they fill.
var pathIDs = map[string]string{
	"user_id":         "usr_ada",
	"organization_id": "org_acme",
	"team_id":         "team_platform",
	"id":              "gapp_acme_github",
	"repo":            "repo_acme_api",
	"pr":              "pr_acme_api_1",
}

func live(t *testing.T) *Client {
	t.Helper()
	base := os.Getenv("PLATFORM_API_URL")
	if base == "" {
		t.Skip("PLATFORM_API_URL is not set: test/clients/goClient.test.ts runs these against a service")
	}
	return NewClient(os.Getenv("PLATFORM_API_TOKEN"), WithBaseURL(base))
}

// call runs a method of Client by name with string arguments and its options struct (nil).
func call(c *Client, method string, args ...string) (reflect.Value, error) {
	m := reflect.ValueOf(c).MethodByName(method)
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for _, a := range args {
		in = append(in, reflect.ValueOf(a))
	}
	in = append(in, reflect.Zero(m.Type().In(m.Type().NumIn()-1)))
	out := m.Call(in)
	err, _ := out[1].Interface().(error)
	return out[0], err
}

func TestEveryListAnswersAPage(t *testing.T) {
	c := live(t)
	lists := 0
	for _, op := range Operations {
		if !strings.HasPrefix(op.Method, "List") {
			continue
		}
		lists++
		var args []string
		for _, name := range op.PathParameters {
			args = append(args, pathIDs[name])
		}
		page, err := call(c, op.Method, args...)
		if err != nil {
			t.Errorf("%s: %v", op.Method, err)
			continue
		}
		if status := page.Elem().FieldByName("Status").String(); status != "success" {
			t.Errorf("%s: status %q", op.Method, status)
		}
		if meta := page.Elem().FieldByName("Meta").Interface().(ListMeta); meta.Page != 1 || page.Elem().FieldByName("Data").Len() > int(meta.PerPage) {
			t.Errorf("%s: meta %+v", op.Method, meta)
		}
	}
	if lists < 30 {
		t.Fatalf("only %d list operations", lists)
	}
}

func TestEveryGetAnswersItsItem(t *testing.T) {
	c := live(t)
	ctx := context.Background()
	apps, err := c.ListUserApps(ctx, "usr_ada", nil)
	if err != nil || len(apps.Data) == 0 {
		t.Fatalf("ada's apps: %v", err)
	}
	calls := map[string][]string{
		"GetUser":              {"usr_ada"},
		"GetUserApp":           {"usr_ada", *apps.Data[0].ID},
		"GetUserDashboardView": {"usr_ada", "view_ada_private"},
		"GetUserTeam":          {"usr_ada", "team_mobile"},
		"GetOrganization":      {"org_acme"},
		"GetTeam":              {"team_platform"},
		"GetTeamMember":        {"team_platform", "usr_linus"},
		"GetDashboardView":     {"view_acme_org"},
	}
	var gets []string
	for _, op := range Operations {
		if strings.HasPrefix(op.Method, "Get") && !strings.HasSuffix(op.Method, "Metrics") {
			gets = append(gets, op.Method)
		}
	}
	if len(gets) != len(calls) {
		t.Fatalf("get operations %v, the test calls %d", gets, len(calls))
	}
	// A user's team membership is named by its team.
	idField := map[string]string{"GetUserTeam": "TeamID"}
	for _, method := range gets {
		args := calls[method]
		item, err := call(c, method, args...)
		if err != nil {
			t.Errorf("%s: %v", method, err)
			continue
		}
		field := idField[method]
		if field == "" {
			field = "ID"
		}
		if id := item.Elem().FieldByName(field).Elem().String(); id != args[len(args)-1] {
			t.Errorf("%s: %s %q", method, field, id)
		}
	}
}

func TestEveryMetric(t *testing.T) {
	c := live(t)
	ctx := context.Background()
	window := func(v reflect.Value) {
		v.Elem().FieldByName("OrganizationID").Set(reflect.ValueOf(Ptr("org_acme")))
		v.Elem().FieldByName("From").Set(reflect.ValueOf(Ptr("2026-10-01")))
		v.Elem().FieldByName("To").Set(reflect.ValueOf(Ptr("2026-10-28")))
	}
	metrics := 0
	for _, op := range Operations {
		if !strings.HasSuffix(op.Method, "Metrics") {
			continue
		}
		metrics++
		m := reflect.ValueOf(c).MethodByName(op.Method)
		opts := reflect.New(m.Type().In(1).Elem())
		window(opts)
		out := m.Call([]reflect.Value{reflect.ValueOf(ctx), opts})
		if err, _ := out[1].Interface().(error); err != nil {
			t.Errorf("%s: %v", op.Method, err)
			continue
		}
		answer := out[0].Elem()
		if version := answer.FieldByName("Meta").FieldByName("SettingsVersion").Int(); version != 0 {
			t.Errorf("%s: settings version %d", op.Method, version)
		}
		figures := answer.FieldByName("Data")
		if from, to := figures.FieldByName("From").String(), figures.FieldByName("To").String(); from != "2026-10-01" || to != "2026-10-28" {
			t.Errorf("%s: window %s..%s", op.Method, from, to)
		}
	}
	if metrics != 8 {
		t.Fatalf("%d metric operations", metrics)
	}
	weekly, err := c.GetDORAMetrics(ctx, &GetDORAMetricsOptions{TeamID: Ptr("team_platform"), Interval: Ptr("week")})
	if err != nil || weekly.Data.Interval == nil || *weekly.Data.Interval != "week" {
		t.Fatalf("weekly DORA: %v %+v", err, weekly)
	}
}

func TestParametersAreSentAsTheAPINamesThem(t *testing.T) {
	c := live(t)
	page, err := c.ListUsers(context.Background(), &ListUsersOptions{CreatedAtEq: Ptr("2024-03-15"), Sort: Ptr("name"), Order: Ptr("asc"), Fields: Ptr("id,name")})
	if err != nil || len(page.Data) != 1 || *page.Data[0].ID != "usr_linus" || page.Data[0].Email != nil {
		t.Fatalf("%v %+v", err, page)
	}
}

func TestPagerWalksEveryPageToTheEnd(t *testing.T) {
	c := live(t)
	ctx := context.Background()
	first, err := c.ListOrganizationMembers(ctx, "org_acme", &ListOrganizationMembersOptions{PerPage: Ptr[int64](1)})
	if err != nil {
		t.Fatal(err)
	}
	pager := c.IterOrganizationMembers(ctx, "org_acme", &ListOrganizationMembersOptions{PerPage: Ptr[int64](7), Sort: Ptr("name"), Order: Ptr("asc")})
	var names []string
	seen := map[string]bool{}
	for pager.Next() {
		member := pager.Item()
		names = append(names, *member.Name)
		seen[*member.ID] = true
	}
	if pager.Err() != nil {
		t.Fatal(pager.Err())
	}
	if int64(len(names)) != first.Meta.Total || int64(len(seen)) != first.Meta.Total || !sort.StringsAreSorted(names) {
		t.Fatalf("%d members (%d distinct) of %d, sorted: %v", len(names), len(seen), first.Meta.Total, sort.StringsAreSorted(names))
	}
	if limit := c.LastRateLimit(); limit == nil || limit.Limit <= 0 {
		t.Fatalf("rate limit of the last answer: %+v", limit)
	}
}

func TestEachErrorCodeIsAnAPIError(t *testing.T) {
	c := live(t)
	ctx := context.Background()
	expect := func(err error, code string, status int) {
		t.Helper()
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Code != code || apiErr.StatusCode != status || apiErr.Message == "" {
			t.Fatalf("want %d %s, got %v", status, code, err)
		}
		if !IsCode(err, code) {
			t.Fatalf("IsCode(%v, %s) is false", err, code)
		}
	}
	_, err := c.ListUsers(ctx, &ListUsersOptions{PerPage: Ptr[int64](101)})
	expect(err, CodeValidationError, 400)
	var invalid *APIError
	if errors.As(err, &invalid); invalid.RateLimit == nil || !strings.Contains(invalid.Message, "per_page") {
		t.Fatalf("%+v", invalid)
	}
	_, err = c.GetUser(ctx, "usr_nobody", nil)
	expect(err, CodeNotFound, 404)
	_, err = NewClient("plat_not_a_real_token", WithBaseURL(os.Getenv("PLATFORM_API_URL"))).ListUsers(ctx, nil)
	expect(err, CodeUnauthorized, 401)
	_, err = NewClient(os.Getenv("PLATFORM_API_COLLABORATOR_TOKEN"), WithBaseURL(os.Getenv("PLATFORM_API_URL"))).ListOrganizationAuditLog(ctx, "org_acme", nil)
	expect(err, CodeForbidden, 403)
	_, err = c.ListUsers(ctx, &ListUsersOptions{Fields: Ptr(strings.Repeat("x", 20_000))})
	expect(err, CodeURITooLong, 414)
	// An id reaches the path as one segment, whatever it holds.
	_, err = c.GetUser(ctx, "../organizations/org_acme", nil)
	expect(err, CodeNotFound, 404)
}

func TestA429IsReturnedOrWaitedOut(t *testing.T) {
	live(t)
	limited := os.Getenv("PLATFORM_API_LIMITED_URL")
	ctx := context.Background()
	c := NewClient(os.Getenv("PLATFORM_API_TOKEN"), WithBaseURL(limited))
	var refused *APIError
	for i := 0; i < 10 && refused == nil; i++ {
		if _, err := c.ListOrganizations(ctx, &ListOrganizationsOptions{PerPage: Ptr[int64](1)}); err != nil && !errors.As(err, &refused) {
			t.Fatal(err)
		}
	}
	if refused == nil || refused.Code != CodeRateLimited || refused.RetryAfter <= 0 || refused.RateLimit == nil || refused.RateLimit.Remaining != 0 {
		t.Fatalf("no 429 with Retry-After: %+v", refused)
	}
	patient := NewClient(os.Getenv("PLATFORM_API_TOKEN"), WithBaseURL(limited), WithRateLimitWait(90*time.Second))
	started := time.Now()
	if _, err := patient.ListOrganizations(ctx, &ListOrganizationsOptions{PerPage: Ptr[int64](1)}); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(started); waited < refused.RetryAfter-2*time.Second {
		t.Fatalf("answered after %s, before Retry-After (%s)", waited, refused.RetryAfter)
	}
}
