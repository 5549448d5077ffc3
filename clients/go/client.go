// Package platformapi is the official Go client of the platform API (GET /v1/...): one method per operation,
// generated from the API's OpenAPI document (operations_gen.go, models_gen.go), over the HTTP of this file.
//
//	client := platformapi.NewClient(os.Getenv("PLATFORM_API_TOKEN"), platformapi.WithBaseURL("https://api.example.com"))
//	team, err := client.GetTeam(ctx, "team_platform", nil)
package platformapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version is this client's version, sent in its User-Agent.
const Version = APIVersion

// Client calls the API with one token. It is safe for concurrent use.
type Client struct {
	token     string
	baseURL   string
	http      *http.Client
	userAgent string
	maxWait   time.Duration
	mu        sync.Mutex // guards rateLimit
	rateLimit *RateLimit
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL is where the service is, without /v1 (default http://localhost:3000).
func WithBaseURL(base string) Option {
	return func(c *Client) { c.baseURL = strings.TrimRight(base, "/") }
}

// WithHTTPClient replaces the HTTP client (its Timeout bounds each request; the default's is 30 s).
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) { c.http = h }
}

// WithTimeout bounds each request.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) { c.http = &http.Client{Timeout: d} }
}

// WithRateLimitWait makes a 429 wait as Retry-After says and try again, for at most max in all, then fail.
func WithRateLimitWait(max time.Duration) Option {
	return func(c *Client) { c.maxWait = max }
}

// NewClient makes a client for an API token (plat_...).
func NewClient(token string, opts ...Option) *Client {
	c := &Client{
		token:     token,
		baseURL:   "http://localhost:3000",
		http:      &http.Client{Timeout: 30 * time.Second},
		userAgent: "platform-api-go/" + Version,
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// RateLimit is what the X-RateLimit-* headers of an answer say.
type RateLimit struct {
	Limit     int64
	Remaining int64
	Reset     time.Time
}

// LastRateLimit is the rate-limit figures of the last answer; nil before the first.
func (c *Client) LastRateLimit() *RateLimit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rateLimit
}

// APIError is an error answer: its code and message, its status, and the rate-limit figures sent with it.
type APIError struct {
	Code       string
	Message    string
	StatusCode int
	RateLimit  *RateLimit
	// RetryAfter is what Retry-After said (429, 503); zero when it was absent.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.StatusCode, e.Code, e.Message)
}

// IsCode says whether err is an APIError with this code (CodeNotFound, CodeRateLimited, ...).
func IsCode(err error, code string) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == code
}

func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	target := c.baseURL + "/v1" + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var waited time.Duration
	for {
		err := c.send(ctx, target, out)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || apiErr.RetryAfter <= 0 || waited+apiErr.RetryAfter > c.maxWait {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(apiErr.RetryAfter):
			waited += apiErr.RetryAfter
		}
	}
}

func (c *Client) send(ctx context.Context, target string, out any) error {
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	request.Header.Set("Authorization", "Bearer "+c.token)
	request.Header.Set("Accept", "application/json")
	request.Header.Set("User-Agent", c.userAgent)
	response, err := c.http.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return err
	}
	limit := rateLimitOf(response.Header)
	if limit != nil {
		c.mu.Lock()
		c.rateLimit = limit
		c.mu.Unlock()
	}
	if response.StatusCode >= 400 {
		return errorOf(response, body, limit)
	}
	return json.Unmarshal(body, out)
}

func errorOf(response *http.Response, body []byte, limit *RateLimit) *APIError {
	apiErr := &APIError{StatusCode: response.StatusCode, RateLimit: limit, Code: "UNKNOWN", Message: strings.TrimSpace(string(body))}
	var envelope struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &envelope) == nil && envelope.Error.Code != "" {
		apiErr.Code, apiErr.Message = envelope.Error.Code, envelope.Error.Message
	}
	if seconds, err := strconv.ParseFloat(response.Header.Get("Retry-After"), 64); err == nil && seconds > 0 {
		apiErr.RetryAfter = time.Duration(seconds * float64(time.Second))
	}
	return apiErr
}

func rateLimitOf(header http.Header) *RateLimit {
	limit, err1 := strconv.ParseInt(header.Get("X-RateLimit-Limit"), 10, 64)
	remaining, err2 := strconv.ParseInt(header.Get("X-RateLimit-Remaining"), 10, 64)
	reset, err3 := strconv.ParseInt(header.Get("X-RateLimit-Reset"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil
	}
	return &RateLimit{Limit: limit, Remaining: remaining, Reset: time.Unix(reset, 0)}
}

// setQuery adds a parameter that was given (a nil pointer is not sent).
func setQuery[T string | int64 | float64 | bool](query url.Values, name string, value *T) {
	if value != nil {
		query.Set(name, fmt.Sprint(*value))
	}
}

// Pager walks a list page after page: for pager.Next() { item := pager.Item() }; then check pager.Err().
type Pager[T any] struct {
	fetch func(page int64) ([]T, ListMeta, error)
	page  int64
	items []T
	index int
	done  bool
	err   error
}

func newPager[T any](fetch func(page int64) ([]T, ListMeta, error), start *int64) *Pager[T] {
	page := int64(1)
	if start != nil {
		page = *start
	}
	return &Pager[T]{fetch: fetch, page: page, index: -1}
}

// Next moves to the next item, fetching the next page when this one is used up; false at the end or on an error.
func (p *Pager[T]) Next() bool {
	if p.err != nil {
		return false
	}
	p.index++
	for p.index >= len(p.items) {
		if p.done {
			return false
		}
		items, meta, err := p.fetch(p.page)
		if err != nil {
			p.err = err
			return false
		}
		p.items, p.index = items, 0
		p.done = len(items) == 0 || p.page*meta.PerPage >= meta.Total
		p.page++
		if len(items) == 0 {
			return false
		}
	}
	return true
}

// Item is the current item.
func (p *Pager[T]) Item() T { return p.items[p.index] }

// Err is the error that stopped the pager, if any.
func (p *Pager[T]) Err() error { return p.err }

// Ptr is a pointer to v, for the optional fields of the options structs: &ListUsersOptions{Sort: Ptr("name")}.
func Ptr[T any](v T) *T { return &v }
