package mgmt

import (
	"math"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
)

// RabbitMQ's list parameters, as rabbit_mgmt_util (3.10.8) reads them:
//
//	page, page_size   paginate (page_size alone does not); the reply is then
//	                  an object with the counts and the page's items
//	name, use_regex   keep the items whose name contains name, ignoring
//	                  case, or matches it as a regular expression; only when
//	                  paginating
//	sort              sort by this field (dotted for nested ones) before the
//	                  default vhost, name; an empty value means no sorting
//	sort_reverse      "true" reverses the sorted list
const (
	defaultPageSize = 100 // ?DEFAULT_PAGE_SIZE
	maxPageSize     = 500 // ?MAX_PAGE_SIZE
)

// defaultSort is ?DEFAULT_SORT, the keys every list is sorted by after the
// one the request names.
var defaultSort = []string{"vhost", "name"}

// listQuery is a list request's parameters.
type listQuery struct {
	paged          bool
	page, pageSize int
	pageText       string // page as given, for errors: it may exceed an int
	name           string // the name filter; "" filters nothing
	regex          bool
	// sort is the keys to sort by, nil for no sorting (an empty sort
	// parameter).
	sort    []string
	reverse bool
}

// errBadPagination is with_valid_pagination's reply to a parameter that is
// not an integer (list_to_integer raising badarg).
var errBadPagination = &apiError{status: http.StatusBadRequest, kind: "bad_request", reason: "Pagination parameters are invalid"}

// parseListQuery reads a list request's parameters; paginates says whether
// the endpoint paginates at all (RabbitMQ's per-vhost connection and
// channel lists only sort).
func parseListQuery(q url.Values, paginates bool) (listQuery, error) {
	lq := listQuery{sort: defaultSort, reverse: q.Get("sort_reverse") == "true"}
	if s, ok := q["sort"]; ok {
		switch s[0] {
		case "":
			lq.sort = nil
		default:
			lq.sort = append([]string{s[0]}, defaultSort...)
		}
	}
	if !paginates {
		return lq, nil
	}
	// Both are read (and must be integers) before either is looked at.
	page, err := requestInt(q, "page")
	if err != nil {
		return lq, err
	}
	size, err := requestInt(q, "page_size")
	if err != nil {
		return lq, err
	}
	if page == nil {
		return lq, nil
	}
	switch {
	case page.Sign() > 0 && size == nil:
		lq.pageSize = defaultPageSize
	case page.Sign() > 0 && size != nil && size.Sign() > 0 && size.Cmp(big.NewInt(maxPageSize)) <= 0:
		lq.pageSize = int(size.Int64())
	default:
		return lq, &apiError{status: http.StatusBadRequest, kind: "invalid_pagination_parameters",
			reason: "Invalid pagination parameters: page number " + page.String() + ", page size " + intOrUndefined(size)}
	}
	lq.paged, lq.pageText = true, page.String()
	lq.page = math.MaxInt32 // beyond any list's last page
	if page.IsInt64() && page.Int64() < math.MaxInt32 {
		lq.page = int(page.Int64())
	}
	lq.name, lq.regex = q.Get("name"), q.Get("use_regex") == "true"
	return lq, nil
}

// requestInt is check_request_param: nil when absent, Erlang's
// list_to_integer otherwise (an optional sign and decimal digits, any
// size).
func requestInt(q url.Values, key string) (*big.Int, error) {
	s, ok := q[key]
	if !ok {
		return nil, nil
	}
	n, ok := new(big.Int).SetString(s[0], 10)
	if !ok {
		return nil, errBadPagination
	}
	return n, nil
}

func intOrUndefined(n *big.Int) string {
	if n == nil {
		return "undefined"
	}
	return n.String()
}

// nameFilter is maybe_filter_by_keyword on the name: a case-insensitive
// substring, or with use_regex a case-insensitive regular expression. An
// invalid expression fails the request the first time it is used, as
// re:run raising badarg does.
type nameFilter struct {
	sub string
	re  *regexp.Regexp
	bad bool
}

func newNameFilter(lq listQuery) nameFilter {
	if !lq.regex {
		return nameFilter{sub: latin1Lower(lq.name)}
	}
	re, err := regexp.Compile("(?i)" + lq.name)
	return nameFilter{re: re, bad: err != nil}
}

// keep reports whether name passes the filter.
func (f nameFilter) keep(name string) (bool, error) {
	switch {
	case f.bad:
		return false, errBadPagination
	case f.re != nil:
		return f.re.MatchString(name), nil
	}
	return containsLower(name, f.sub), nil
}

// lowerByte is string:to_lower on one byte of a binary_to_list'ed string:
// it lowers the byte as an ISO 8859-1 character (A-Z and À-Þ except ×),
// which is how RabbitMQ compares a name filter with names.
func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' || 0xC0 <= c && c <= 0xDE && c != 0xD7 {
		return c + 32
	}
	return c
}

func latin1Lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}

// containsLower reports whether s lowered contains sub (already lowered),
// without allocating: it runs over every name in the broker.
func containsLower(s, sub string) bool {
next:
	for i := 0; i+len(sub) <= len(s); i++ {
		for j := 0; j < len(sub); j++ {
			if lowerByte(s[i+j]) != sub[j] {
				continue next
			}
		}
		return true
	}
	return false
}

// pageJSON is a paginated list reply, its keys in RabbitMQ's order.
type pageJSON struct {
	TotalCount    int   `json:"total_count"`
	ItemCount     int   `json:"item_count"`
	FilteredCount int   `json:"filtered_count"`
	Page          int   `json:"page"`
	PageSize      int   `json:"page_size"`
	PageCount     int   `json:"page_count"`
	Items         []any `json:"items"`
}

// pageBounds is range_filter: the index range of the page in a filtered
// list of n items. A page whose first item would lie beyond the list's end
// is page_out_of_range; the page just past a full last page is empty.
func (lq listQuery) pageBounds(n int) (from, to int, err error) {
	if lq.page-1 > n/lq.pageSize {
		return 0, 0, &apiError{status: http.StatusBadRequest, kind: "page_out_of_range",
			reason: "Page out of range, page: " + lq.pageText + " page size: " + strconv.Itoa(lq.pageSize) + ", len: " + strconv.Itoa(n)}
	}
	from = (lq.page - 1) * lq.pageSize
	return from, min(from+lq.pageSize, n), nil
}

// pageCount is ceil(filtered / page size).
func (lq listQuery) pageCount(filtered int) int { return (filtered + lq.pageSize - 1) / lq.pageSize }
