package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/valyala/fasthttp"
)

// The extensibility study's subgraph: POST /graphql, a GraphQL API with fixed data (three
// products) and `header(name)`, the value of a request header as the subgraph received it, so
// that a check on every response proves what a gateway sent (the GraphQL form of /echo/headers).
// proxies/hive-gateway/supergraph.graphql is this schema composed as a supergraph.
const subgraphSchema = `
type Query {
  products: [Product!]!
  "The request header of this name as the subgraph received it (joined with ', '), or null."
  header(name: String!): String
}
type Product {
  id: ID!
  name: String!
  price: Float!
}
`

type product struct {
	ID    graphql.ID
	Name  string
	Price float64
}

var subgraphProducts = []product{
	{ID: "1", Name: "Table", Price: 899},
	{ID: "2", Name: "Couch", Price: 1299},
	{ID: "3", Name: "Chair", Price: 54},
}

type headersKey struct{}

// subgraphResolver resolves the schema's Query; fields resolve by name (Products, Header).
type subgraphResolver struct{}

func (*subgraphResolver) Products() []product { return subgraphProducts }

func (*subgraphResolver) Header(ctx context.Context, args struct{ Name string }) *string {
	headers, _ := ctx.Value(headersKey{}).(map[string]string)
	if v, ok := headers[strings.ToLower(args.Name)]; ok {
		return &v
	}
	return nil
}

var subgraph = graphql.MustParseSchema(subgraphSchema, &subgraphResolver{}, graphql.UseFieldResolvers())

type graphqlRequest struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

// serveGraphQL answers POST /graphql with the result of the query in the JSON body.
func serveGraphQL(ctx *fasthttp.RequestCtx) *response {
	if !ctx.IsPost() {
		return notAllowedResponse
	}
	var req graphqlRequest
	if err := json.Unmarshal(ctx.PostBody(), &req); err != nil || req.Query == "" {
		body := []byte(`{"errors":[{"message":"expected a JSON body with a query"}]}`)
		return &response{http.StatusBadRequest, typeJSON, body}
	}
	seen := requestHeaders(ctx)
	c := context.WithValue(context.Background(), headersKey{}, seen)
	result := subgraph.Exec(c, req.Query, req.OperationName, req.Variables)
	body, _ := json.Marshal(result) // a graphql.Response always encodes
	return &response{http.StatusOK, typeJSON, body}
}
