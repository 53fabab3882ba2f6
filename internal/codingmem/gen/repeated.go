package main

// One question asked in three sessions: twice it was left for later, the third time it was
// answered. A user asks again what they asked before all the time; search should give the
// record that answers it first, and the question once.
func init() {
	payments.sessions = append(payments.sessions, paymentsRepeated...)
}

var paymentsRepeated = []session{
	{key: "pay50", start: "2026-11-09 09:40",
		prompts: []string{"Bump Go to 1.26 and fix whatever breaks", "rate limiter returns 429 for health checks, why?"},
		obs: []string{
			"change|Go 1.26 in go.mod, the Dockerfile and CI|golangci-lint bumped with it|The toolchain line and the builder image move together so local and CI builds match.|go.mod toolchain go1.26.0|what-changed|go.mod, Dockerfile|go.mod, Dockerfile, .github/workflows/ci.yml",
			"bugfix|Tests relied on map iteration order in the webhook fixture comparison|compare sorted keys instead|Go 1.26 randomizes small maps differently, so a fixture diff printed keys in another order and failed.|cmp.Diff with cmpopts.SortMaps|problem-solution|internal/webhook/handler_test.go|internal/webhook/handler_test.go",
		},
		sum: [6]string{"Go 1.26 upgrade", "What the new toolchain broke", "Fixtures must not depend on map order", "Go 1.26 everywhere, map-order test fixed", "Look at the 429s on health checks", ""},
	},
	{key: "pay51", start: "2026-11-12 14:05",
		prompts: []string{"The rate limiter returns 429 for health checks. Why?", "Never mind, the payout CSV export has the wrong column order, fix that first"},
		obs: []string{
			"bugfix|Payout CSV export wrote amount and currency in swapped columns|header and rows built from one column list|The header was written from a literal while rows followed the struct order; both now come from payoutColumns.|Golden file test for the export|problem-solution|internal/payout/export.go|internal/payout/export.go, internal/payout/export_test.go",
		},
		sum: [6]string{"Payout CSV export column order", "The export's header and row builders", "Header and rows must share one column list", "Columns fixed, golden test added", "Come back to the health check 429s", ""},
	},
	{key: "pay52", start: "2026-11-17 10:20",
		prompts: []string{"Rate limiter returns 429 for the health checks — why"},
		obs: []string{
			"bugfix|Health checks got 429: the rate limiter ran before the probe routes|/healthz and /readyz mounted ahead of the limiter middleware|Kubernetes probes carry no API key, so the limiter keyed every probe of a node by its source IP. With liveness and readiness probes from 80 pods that bucket emptied within a minute, /readyz was refused and the pods were marked unready. The probe routes are now mounted before the middleware, so probes are never counted.|Regression test sends 500 probes a second|problem-solution|internal/http/router.go, internal/http/middleware/ratelimit.go|internal/http/router.go, internal/http/router_test.go",
		},
		sum: [6]string{"Stop rate limiting Kubernetes health probes", "Why /readyz answered 429", "Keyless requests share one bucket per source IP", "Health routes mounted before the limiter", "", ""},
	},
}
