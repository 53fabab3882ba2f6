package main

// Routine sessions: reviews, small features, upkeep. They answer no query; they are there
// because a real memory is mostly such work, and it shares the words of what the queries
// are about.
func init() {
	payments.sessions = append(payments.sessions, paymentsRoutine...)
	storefront.sessions = append(storefront.sessions, storefrontRoutine...)
	pipeline.sessions = append(pipeline.sessions, pipelineRoutine...)
}

var paymentsRoutine = []session{
	{key: "pay40", start: "2026-03-12 16:40",
		prompts: []string{"Add a health endpoint for the load balancer and one for readiness"},
		obs: []string{
			"feature|/healthz and /readyz endpoints|readiness checks the database pool and migrations|/healthz answers 200 while the process runs; /readyz pings Postgres with a 500 ms timeout and fails until migrations are applied.|Both outside auth and rate limiting|how-it-works|cmd/server/main.go|internal/http/health.go, internal/http/router.go",
			"change|Kubernetes probes point at /healthz and /readyz|liveness every 10 s, readiness every 5 s|The liveness probe no longer touches the database so a database outage does not restart every pod.|deploy/k8s/deployment.yaml probes|what-changed|deploy/k8s/deployment.yaml|deploy/k8s/deployment.yaml",
		},
		sum: [6]string{"Health and readiness endpoints", "Probe semantics", "Liveness must not depend on the database", "/healthz, /readyz and their probes", "", ""},
	},
	{key: "pay41", start: "2026-04-06 09:20",
		prompts: []string{"Add request ids to every log line and response"},
		obs: []string{
			"feature|Request id middleware: X-Request-Id read or generated, added to logs and responses|zerolog context logger per request|Every log line of a request carries request_id; errors returned to clients include it so support can find the logs.|ULIDs for generated ids|how-it-works|internal/http/router.go|internal/http/middleware/requestid.go",
			"change|Error responses carry a request_id field|{error: {code, message, request_id}}|Merchants quote it in support tickets.|Documented in docs/api/errors.md|what-changed|internal/http/errors.go|internal/http/errors.go, docs/api/errors.md",
		},
		sum: [6]string{"Request ids in logs and responses", "", "", "Request id middleware, request_id in error bodies", "", ""},
	},
	{key: "pay42", start: "2026-05-07 14:10",
		prompts: []string{"Review the payment state machine, I think capture can happen twice"},
		obs: []string{
			"discovery|Payment states: requires_payment_method, requires_confirmation, processing, requires_capture, succeeded, canceled|transitions enforced in payment.Transition|The state machine mirrors Stripe's PaymentIntent; our row also records captured_amount.|State diagram in docs/payments.md|how-it-works|internal/payment/payment.go|docs/payments.md",
			"bugfix|Capture could run twice when the capture request was retried after a timeout|capture guarded by UPDATE ... WHERE status = 'requires_capture'|A retried capture saw the old state because the first was still in flight. The status update is now conditional and the Stripe capture uses an idempotency key capture-<payment_id>.|Second capture returns 409 payment_already_captured|problem-solution|internal/payment/capture.go|internal/payment/capture.go",
			"change|Capture endpoint accepts amount_to_capture for partial capture|remainder released automatically by Stripe|Hotels capture less than authorized.|amount_to_capture <= amount_capturable|what-changed|internal/http/payments.go|internal/http/payments.go, internal/payment/capture.go",
		},
		sum: [6]string{"Review of the payment state machine; double capture", "Payment transitions, capture retries", "Conditional status updates make retried captures safe", "Guarded capture with idempotency key, partial capture", "", ""},
	},
	{key: "pay43", start: "2026-06-01 10:50",
		prompts: []string{"Merchant onboarding: create a Stripe Connect account and collect KYC through Stripe's hosted flow"},
		obs: []string{
			"feature|Merchant onboarding with Stripe Connect Express accounts|account links for the hosted KYC flow|POST /v1/merchants creates the connected account and returns an account link; account.updated webhooks set charges_enabled and payouts_enabled on our merchant row.|Refresh URL regenerates an expired link|how-it-works|internal/merchant/merchant.go|internal/merchant/onboarding.go, internal/webhook/worker.go",
			"discovery|account.updated arrives several times during onboarding|handlers must be idempotent on the latest state|We store the requirements list as received and never infer state from event order.|Events may arrive out of order|gotcha|internal/webhook/worker.go|",
		},
		sum: [6]string{"Merchant onboarding with Stripe Connect", "Express accounts, account links, account.updated", "Webhook order is not guaranteed; store the latest state", "Onboarding endpoint, account link flow, account.updated handling", "", ""},
	},
	{key: "pay44", start: "2026-06-29 15:30",
		prompts: []string{"Add metrics for payments: counts by status, latency, and Stripe API errors"},
		obs: []string{
			"feature|Prometheus metrics for payments and the Stripe client|payments_total{status}, stripe_request_seconds, stripe_errors_total{code}|The Stripe client's HTTP transport records latency and error codes per endpoint.|Exposed on :9090/metrics|how-it-works|internal/stripeclient/client.go|internal/metrics/metrics.go, internal/stripeclient/client.go",
			"change|Grafana dashboard payments-api-overview in deploy/grafana|request rate, error rate, p95, pool usage|Dashboard JSON is committed and provisioned.|Alerts on error rate above 2 percent|what-changed|deploy/grafana/payments.json|deploy/grafana/payments.json",
		},
		sum: [6]string{"Payment and Stripe client metrics", "", "", "Prometheus metrics and a Grafana dashboard", "", ""},
	},
	{key: "pay45", start: "2026-07-14 11:15",
		prompts: []string{"Make the list endpoints paginate with cursors instead of offset"},
		obs: []string{
			"change|List endpoints use cursor pagination with starting_after and limit|keyset on (created_at, id)|Offset pagination slowed down on merchants with a million payments and skipped rows when new ones arrived.|limit max 100, default 20; has_more in the response|what-changed, why-it-exists|internal/http/payments.go|internal/http/pagination.go, internal/repo/payments.go",
			"discovery|Index (merchant_id, created_at DESC, id DESC) makes keyset pagination an index scan|EXPLAIN showed 0.3 ms per page|The previous index lacked id as a tiebreaker.|migrations/0016_payments_list_index.sql|how-it-works|migrations/0016_payments_list_index.sql|migrations/0016_payments_list_index.sql",
		},
		sum: [6]string{"Cursor pagination for list endpoints", "Keyset pagination and indexes", "Offset pagination is slow and unstable with inserts", "starting_after cursors, new composite index", "", ""},
	},
	{key: "pay46", start: "2026-08-10 13:45",
		prompts: []string{"Write the integration test suite for the webhook worker with real Postgres"},
		obs: []string{
			"feature|Webhook worker integration tests with recorded Stripe events|testdata/events/*.json replayed through the worker|Each test stores a recorded event, runs the worker once and checks the ledger postings.|Uses the CI Postgres service|how-it-works|internal/webhook/worker.go|internal/webhook/worker_test.go, internal/webhook/testdata/events/payment_intent.succeeded.json",
			"refactor|Webhook worker split into fetch, dispatch and per-type handlers|a map from event type to handler|The switch over event types had grown to 400 lines; each handler is now its own function with its own tests.|Unknown types return errUnhandled and are acknowledged|what-changed|internal/webhook/worker.go|internal/webhook/worker.go, internal/webhook/handlers.go",
		},
		sum: [6]string{"Integration tests for the webhook worker", "Recorded events, worker structure", "", "Recorded-event tests, handlers split by event type", "", ""},
	},
	{key: "pay47", start: "2026-09-08 09:35",
		prompts: []string{"Support SEPA Direct Debit payments"},
		obs: []string{
			"feature|SEPA Direct Debit as a payment method|payments stay processing for up to 14 days|The API accepts payment_method_types sepa_debit; the ledger posts to merchant_pending until payment_intent.succeeded, and a late failure reverses it.|Mandate acceptance text shown by the frontend|how-it-works|internal/payment/create.go|internal/payment/create.go, internal/payment/post.go",
			"discovery|SEPA payments can fail days after processing with payment_intent.payment_failed|the ledger needs a reversal entry|A late failure reverses the pending posting and notifies the merchant.|Failure codes: insufficient_funds, account_closed|gotcha|internal/webhook/worker.go|internal/webhook/handlers.go",
		},
		sum: [6]string{"SEPA Direct Debit payments", "Delayed confirmation, late failures", "Delayed methods need reversals", "sepa_debit support with reversal on late failure", "", ""},
	},
	{key: "pay48", start: "2026-10-20 14:25",
		prompts: []string{"Clean up the repo layer, too much copy-pasted SQL"},
		obs: []string{
			"refactor|Repository queries generated with sqlc from queries/*.sql|typed Go methods instead of hand-written Scan calls|sqlc generates internal/repo/db from the SQL files; the schema is read from migrations/.|make generate runs sqlc and oapi-codegen|what-changed|internal/repo/payments.go|sqlc.yaml, queries/payments.sql, internal/repo/db/payments.sql.go",
			"discovery|sqlc cannot express the dynamic filters of the search endpoint|that one query stays hand-built with squirrel|Everything else moved to sqlc.|internal/repo/search.go|trade-off|internal/repo/search.go|",
		},
		sum: [6]string{"Clean up the repository layer", "sqlc, dynamic queries", "", "sqlc for static queries, squirrel for search", "", ""},
	},
	{key: "pay49", start: "2026-11-04 10:05",
		prompts: []string{"Prepare the Black Friday runbook and scale settings"},
		obs: []string{
			"change|Black Friday: replicas 4 to 8, HPA on CPU 60 percent, database max_conns 30 per pod|8 x 30 stays below the 400 connection limit|Per-pod connections lowered as replicas doubled; the fraud breaker threshold was relaxed.|Scale back after Cyber Monday|what-changed|deploy/k8s/deployment.yaml|deploy/k8s/deployment.yaml, deploy/k8s/hpa.yaml, config/payments.yaml",
			"change|Freeze on deploys from Thursday to Monday, with an on-call rota|docs/runbook.md Black Friday section|Only incident fixes are deployed during the freeze.|Rota in PagerDuty|what-changed|docs/runbook.md|docs/runbook.md",
		},
		sum: [6]string{"Black Friday preparation", "Capacity, connection limits, freeze rules", "", "Doubled replicas with fewer connections each, deploy freeze and rota", "", ""},
	},
}

var storefrontRoutine = []session{
	{key: "web40", start: "2026-03-20 11:40",
		prompts: []string{"Product page: gallery, variants, add to cart"},
		obs: []string{
			"feature|Product page with image gallery and variant picker|variant in the URL as ?sku=|Selecting a size or color updates the sku in the URL, so a shared link opens the same variant.|useProduct(slug) query; out-of-stock variants disabled|how-it-works|src/pages/Product.tsx|src/pages/Product.tsx, src/features/product/VariantPicker.tsx",
			"feature|Add to cart button with quantity stepper|cartStore.add and a toast with undo|The button is disabled until a variant is chosen.|Max quantity from stock|how-it-works|src/features/cart/cartStore.ts|src/features/product/AddToCart.tsx",
		},
		sum: [6]string{"Product page with gallery, variants and add to cart", "", "", "Gallery, variant picker with sku in URL, add to cart", "", ""},
	},
	{key: "web41", start: "2026-04-24 13:15",
		prompts: []string{"Cart drawer that slides in from the right, with totals"},
		obs: []string{
			"feature|Cart drawer with line items, quantity edits and totals|prices recomputed from the API before checkout|The drawer shows the price seen when adding; opening checkout refetches prices and flags changes.|Free shipping threshold bar|how-it-works|src/features/cart/cartStore.ts|src/features/cart/CartDrawer.tsx",
			"change|Money formatted with Intl.NumberFormat in the user's locale and the shop currency|src/lib/money.ts|Amounts are integers in cents from the API.|formatMoney(cents, currency, locale)|what-changed|src/lib/money.ts|src/lib/money.ts",
		},
		sum: [6]string{"Cart drawer with totals", "", "", "Cart drawer, money formatting", "", ""},
	},
	{key: "web42", start: "2026-05-14 10:30",
		prompts: []string{"Set up vitest and testing-library for component tests"},
		obs: []string{
			"change|Vitest with jsdom and Testing Library configured in vite.config.ts test block|setupTests.ts adds jest-dom matchers|Unit and component tests run with pnpm test; msw handlers are shared with the Playwright mock API.|coverage with v8|what-changed|vite.config.ts|vite.config.ts, src/setupTests.ts",
			"feature|Component tests for CheckoutForm and CartDrawer|user-event for typing and clicking|Tests cover validation messages, disabled states and totals.|Run in CI before e2e|how-it-works|src/features/checkout/CheckoutForm.tsx|src/features/checkout/CheckoutForm.test.tsx, src/features/cart/CartDrawer.test.tsx",
		},
		sum: [6]string{"Vitest and Testing Library", "", "", "Component test setup and first tests", "", ""},
	},
	{key: "web43", start: "2026-06-08 15:50",
		prompts: []string{"Header navigation with mega menu from the CMS categories"},
		obs: []string{
			"feature|Mega menu built from CMS categories, cached for an hour|useCategories query with staleTime 1h|The header fetches the category tree once; the menu opens on hover with a delay and on click for touch.|Keyboard navigation with arrow keys|how-it-works|src/components/Header.tsx|src/components/Header.tsx, src/components/MegaMenu.tsx",
		},
		sum: [6]string{"Header mega menu from CMS categories", "", "", "Mega menu with cached categories", "", ""},
	},
	{key: "web44", start: "2026-07-06 09:55",
		prompts: []string{"Order confirmation page and email preview"},
		obs: []string{
			"feature|Order confirmation page polls the order until payment succeeded|refetchInterval until status is paid|After the PaymentElement returns, the page polls /orders/{id} every 2 s for up to a minute.|Shows a pending message for delayed methods|how-it-works|src/features/checkout/Complete.tsx|src/features/checkout/Complete.tsx",
			"discovery|Confirmation emails are sent by the payments API's notifications, not the frontend|nothing to build here|The frontend only links to the order page.|Email templates live in the notifications service|how-it-works|src/features/checkout/Complete.tsx|",
		},
		sum: [6]string{"Order confirmation page", "", "", "Polling confirmation page", "", ""},
	},
	{key: "web45", start: "2026-08-17 14:05",
		prompts: []string{"Add reviews and star ratings to product pages"},
		obs: []string{
			"feature|Product reviews with star ratings and pagination|reviews loaded below the fold with an IntersectionObserver|Average rating and count show near the title; the list loads when scrolled into view.|Reviews API /products/{id}/reviews|how-it-works|src/pages/Product.tsx|src/features/reviews/Reviews.tsx",
			"change|Structured data for ratings in the product page head|JSON-LD AggregateRating|Search engines show stars for products.|Rendered by react-helmet-async|what-changed|src/pages/Product.tsx|src/pages/Product.tsx",
		},
		sum: [6]string{"Product reviews and ratings", "", "", "Reviews list, JSON-LD ratings", "", ""},
	},
	{key: "web46", start: "2026-09-14 11:20",
		prompts: []string{"Refactor the checkout into steps with a progress indicator"},
		obs: []string{
			"refactor|Checkout split into address, shipping and payment steps|state machine with useReducer|Each step validates before the next; back navigation keeps entered data.|Step in the URL: /checkout/:step|what-changed|src/features/checkout/CheckoutForm.tsx|src/features/checkout/Checkout.tsx, src/features/checkout/steps.ts",
			"feature|Shipping options fetched for the entered address|rates from the API with delivery estimates|Changing the address invalidates the rates query.|Query key ['shipping', addressHash]|how-it-works|src/features/checkout/Checkout.tsx|src/features/checkout/ShippingStep.tsx",
		},
		sum: [6]string{"Checkout in steps", "", "", "Three-step checkout, shipping rates per address", "", ""},
	},
	{key: "web47", start: "2026-10-05 16:30",
		prompts: []string{"Lighthouse says our fonts block rendering"},
		obs: []string{
			"change|Fonts self-hosted with font-display swap and preloaded|no more Google Fonts request|Two woff2 files preloaded in index.html; unicode-range subsets for Latin.|CLS unchanged thanks to size-adjust|what-changed|index.html|index.html, src/styles/fonts.css",
		},
		sum: [6]string{"Fonts blocking rendering", "", "", "Self-hosted preloaded fonts with swap", "", ""},
	},
	{key: "web48", start: "2026-10-19 10:45",
		prompts: []string{"Add an address autocomplete to checkout"},
		obs: []string{
			"feature|Address autocomplete with the Places API behind our API proxy|debounced suggestions, key never in the browser|The API proxies place suggestions so the Google key stays server-side.|Falls back to manual entry|how-it-works|src/features/checkout/AddressStep.tsx|src/features/checkout/AddressAutocomplete.tsx",
		},
		sum: [6]string{"Address autocomplete in checkout", "", "", "Autocomplete through an API proxy", "", ""},
	},
	{key: "web49", start: "2026-11-09 13:35",
		prompts: []string{"Black Friday banner and countdown, driven by a flag"},
		obs: []string{
			"feature|Sale banner with a countdown behind the black-friday flag|end time from the flag's variant payload|The banner reads its end time from Unleash so marketing can change it without a deploy.|Hidden after the end time|how-it-works|src/flags/flags.ts|src/components/SaleBanner.tsx",
		},
		sum: [6]string{"Black Friday banner", "", "", "Flag-driven sale banner with countdown", "", ""},
	},
}

var pipelineRoutine = []session{
	{key: "dat40", start: "2026-03-18 15:20",
		prompts: []string{"Add a dbt staging model for raw events"},
		obs: []string{
			"feature|stg_events model: typed columns, renamed fields, parsed properties|view over the external table|Casts occurred_at to timestamp_tz, extracts common properties and filters test users.|Materialized as a view|how-it-works|dbt/models/staging/stg_events.sql|dbt/models/staging/stg_events.sql, dbt/models/staging/sources.yml",
		},
		sum: [6]string{"Staging model for raw events", "", "", "stg_events view", "", ""},
	},
	{key: "dat41", start: "2026-04-21 10:40",
		prompts: []string{"Build a daily active users mart"},
		obs: []string{
			"feature|fct_daily_active_users by platform and country|incremental by event_date|Counts distinct user_id per day from fct_sessions; mobile and web split by platform.|Used by the growth dashboard|how-it-works|dbt/models/marts/fct_sessions.sql|dbt/models/marts/fct_daily_active_users.sql",
			"discovery|Anonymous users are counted by device id, logged-in ones by user id|a user on two devices counts once only when logged in|Documented in the model's description.|identity stitching planned|gotcha|dbt/models/marts/fct_daily_active_users.sql|",
		},
		sum: [6]string{"Daily active users mart", "", "", "fct_daily_active_users", "", ""},
	},
	{key: "dat42", start: "2026-05-18 13:50",
		prompts: []string{"Write a Makefile so the common commands are easy"},
		obs: []string{
			"change|Makefile targets: lint, test, dbt-build, run-day, docker|wraps uv run and dbt commands|New team members run make test without knowing the tools.|make help lists targets|what-changed|Makefile|Makefile",
		},
		sum: [6]string{"Makefile for common commands", "", "", "Makefile with lint, test, dbt and docker targets", "", ""},
	},
	{key: "dat43", start: "2026-06-12 09:10",
		prompts: []string{"Add the funnel model for checkout: view product, add to cart, checkout, purchase"},
		obs: []string{
			"feature|fct_checkout_funnel with step timestamps per session|window functions over session events|Each session row has the first time it reached each step; conversion rates computed in the dashboard.|Steps defined in a seed file|how-it-works|dbt/models/marts/fct_sessions.sql|dbt/models/marts/fct_checkout_funnel.sql, dbt/seeds/funnel_steps.csv",
		},
		sum: [6]string{"Checkout funnel model", "", "", "fct_checkout_funnel from session events", "", ""},
	},
	{key: "dat44", start: "2026-07-15 14:30",
		prompts: []string{"Type-check the pipeline with mypy"},
		obs: []string{
			"change|mypy strict on pipeline/ with pandas-stubs|CI fails on type errors|Found three real bugs: a None partition date, a str passed as Path, and a missing await-free return.|ignore_missing_imports for confluent_kafka|what-changed|pyproject.toml|pyproject.toml, pipeline/storage/s3.py",
		},
		sum: [6]string{"mypy for the pipeline", "", "", "mypy strict in CI", "", ""},
	},
	{key: "dat45", start: "2026-08-12 11:05",
		prompts: []string{"Marketing wants UTM attribution per session"},
		obs: []string{
			"feature|Session attribution from the first event's UTM parameters|utm_source, utm_medium, utm_campaign on fct_sessions|The landing event's URL parameters are parsed in stg_events; direct traffic when absent.|Referrer used when no UTM|how-it-works|dbt/models/staging/stg_events.sql|dbt/models/marts/fct_sessions.sql",
		},
		sum: [6]string{"UTM attribution per session", "", "", "UTM columns on fct_sessions", "", ""},
	},
	{key: "dat46", start: "2026-09-09 16:15",
		prompts: []string{"The compaction DAG and the daily DAG sometimes touch the same partition. Is that safe?"},
		obs: []string{
			"discovery|Compaction and sessionize can overlap on yesterday's partition|the manifest swap makes readers see old or new files, never both|Sessionize reads the manifest once; compaction swaps it atomically and deletes old files after an hour.|Delayed delete protects running readers|how-it-works|pipeline/storage/compact.py|",
			"change|Compaction skips partitions younger than two hours|no compaction while the consumer still writes|Avoids rewriting a partition that is still receiving files.|compaction.min_age_hours in settings.toml|what-changed|pipeline/storage/compact.py|pipeline/storage/compact.py, config/settings.toml",
		},
		sum: [6]string{"Compaction overlapping with the daily run", "", "Atomic manifest swaps keep readers consistent", "Young partitions skipped by compaction", "", ""},
	},
	{key: "dat47", start: "2026-10-14 10:25",
		prompts: []string{"Export a daily CSV of orders for finance to an SFTP server"},
		obs: []string{
			"feature|Daily finance export: orders CSV uploaded to the finance SFTP|paramiko with a key from Secrets Manager|The DAG finance_export writes yesterday's orders from Snowflake to CSV and uploads it at 06:00 UTC.|Host key pinned|how-it-works|dags/finance_export.py|dags/finance_export.py, pipeline/export/finance.py",
		},
		sum: [6]string{"Daily orders CSV for finance", "", "", "finance_export DAG to SFTP", "", ""},
	},
	{key: "dat48", start: "2026-11-24 09:40",
		prompts: []string{"Write the onboarding doc for new data engineers"},
		obs: []string{
			"change|docs/onboarding.md: setup with uv, running a day locally, where things live|links to the runbook and the event contract|Covers credentials, the Makefile targets and the on-call expectations.|Reviewed by the two newest team members|what-changed|docs/onboarding.md|docs/onboarding.md",
		},
		sum: [6]string{"Onboarding doc for data engineers", "", "", "docs/onboarding.md", "", ""},
	},
}
