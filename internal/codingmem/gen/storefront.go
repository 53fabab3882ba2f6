package main

// storefront is a React and TypeScript web shop: auth with refresh tokens, cart, checkout,
// i18n, build and deploy.
var storefront = project{name: "storefront-web", cwd: "/home/maya/src/storefront-web", sessions: []session{
	{key: "web01", start: "2026-03-03 10:00",
		prompts: []string{
			"Scaffold the storefront: React 18, TypeScript, Tailwind. Next.js or Vite?",
		},
		obs: []string{
			"decision|Vite single-page app instead of Next.js|static hosting on S3 and CloudFront, no server to run|The shop's pages are behind search and login or are product lists that change hourly; SEO pages are served by the CMS. Without a need for SSR, Next.js would mean running Node servers. Vite builds static assets that CloudFront serves.|Product pages for SEO are rendered by the CMS at shop.example.com/p/*|why-it-exists, trade-off|package.json|package.json, vite.config.ts",
			"feature|Project scaffold with Vite, React 18, TypeScript strict and Tailwind|path alias @/ for src|tsconfig has strict true and noUncheckedIndexedAccess; the @/ alias is configured in both tsconfig.json paths and vite.config.ts resolve.alias.|pnpm as the package manager; Node 20 in .nvmrc|how-it-works|tsconfig.json|tsconfig.json, vite.config.ts, tailwind.config.ts, .nvmrc",
			"change|ESLint flat config with typescript-eslint and react-hooks rules|eslint.config.js|The rules-of-hooks and exhaustive-deps rules are errors, not warnings.|Prettier runs separately, not as an ESLint rule|what-changed|eslint.config.js|eslint.config.js",
		},
		sum: [6]string{"Scaffold the storefront with React, TypeScript and Tailwind", "Next.js versus Vite for a shop without SSR needs", "Static hosting suffices since the CMS serves SEO pages", "Vite + React 18 + TS strict + Tailwind scaffold, @/ alias, ESLint flat config", "Auth and the API client", ""},
	},
	{key: "web02", start: "2026-03-09 13:30",
		prompts: []string{
			"Implement login against the auth API. Where should the tokens live so XSS can't steal them?",
		},
		obs: []string{
			"decision|Access token kept in memory, refresh token in an httpOnly SameSite cookie|nothing token-like in localStorage|A token in localStorage is readable by any injected script. The access token (15 min) lives in a module variable in src/api/client.ts; the refresh token is an httpOnly, Secure, SameSite=Strict cookie set by the auth API on /auth/refresh only.|On page load the app calls /auth/refresh to get a new access token; Cookie path restricted to /auth|why-it-exists, trade-off|src/api/client.ts|src/api/client.ts, src/auth/AuthProvider.tsx",
			"feature|AuthProvider context with login, logout and the current user|useAuth() hook for components|AuthProvider restores the session on mount with a refresh call, exposes user and status (loading, authenticated, anonymous), and logout clears the in-memory token and calls /auth/logout to clear the cookie.|Protected routes wrap RequireAuth which redirects to /login|how-it-works|src/auth/AuthProvider.tsx|src/auth/AuthProvider.tsx, src/auth/RequireAuth.tsx, src/routes.tsx",
			"feature|API client attaches the bearer token and refreshes once on 401|fetch wrapper in src/api/client.ts|apiFetch adds Authorization: Bearer, and on a 401 calls refresh() once and retries the request; a second 401 logs the user out.|credentials: 'include' only on /auth calls|how-it-works|src/api/client.ts|src/api/client.ts",
		},
		sum: [6]string{"Login against the auth API with tokens safe from XSS", "Token storage options, refresh flows", "Tokens in localStorage are exposed to XSS; use memory plus an httpOnly cookie", "In-memory access token, httpOnly refresh cookie, AuthProvider, apiFetch with refresh on 401", "", ""},
	},
	{key: "web03", start: "2026-03-16 09:20",
		prompts: []string{
			"Customers complain they get kicked out and have to log in again, seemingly at random, mostly on the product page",
			"is it the refresh logic? the product page fires like 6 requests at once",
		},
		obs: []string{
			"bugfix|Random logouts: parallel 401s each refreshed with the same rotating refresh token|single-flight refresh promise in src/api/refresh.ts|When the access token expired, the product page's six parallel requests all got 401 and each called /auth/refresh with the same cookie. The auth API rotates refresh tokens and treats reuse of an old one as theft, revoking the whole family, so the later refresh calls failed and apiFetch logged the user out. refresh() now shares one in-flight promise; all waiting requests retry with its token.|Reproduced by setting the access token TTL to 10 s in dev; Auth API reuse detection is correct behaviour and stays|problem-solution, gotcha|src/api/client.ts|src/api/refresh.ts, src/api/client.ts",
			"feature|Proactive token refresh one minute before expiry|timer from the token's exp claim|Besides the single-flight fix, the client refreshes 60 s before exp so most requests never see a 401.|Timer cleared on logout and on tab hidden for over 15 minutes|how-it-works|src/api/refresh.ts|src/api/refresh.ts",
			"feature|Test that fires ten parallel requests with an expired token|vitest with msw counts refresh calls|The test asserts exactly one /auth/refresh call and that all ten requests succeed.|msw handler returns 401 until the refresh happened|how-it-works|src/api/refresh.test.ts|src/api/refresh.test.ts",
		},
		sum: [6]string{"Customers are logged out at random, mostly on the product page", "The 401 handling in apiFetch, refresh token rotation and reuse detection", "Concurrent refreshes with a rotating token trip reuse detection and revoke the session", "Single-flight refresh, proactive refresh before expiry, a parallel-requests test", "", ""},
	},
	{key: "web04", start: "2026-03-25 14:45",
		prompts: []string{
			"We keep writing useEffect fetch code. Pick a data fetching approach and a store for the cart",
		},
		obs: []string{
			"decision|TanStack Query for server state instead of Redux Toolkit|caching, dedup and refetch without boilerplate|Most state is server data (products, orders). TanStack Query gives caching, request deduplication and background refetching; Redux would need thunks and hand-written cache invalidation.|Query keys centralised in src/api/keys.ts|why-it-exists, trade-off|src/hooks/useProducts.ts|src/api/queryClient.ts, src/api/keys.ts",
			"change|Query client defaults: staleTime 30 s, retry 1, no refetch on window focus for catalog queries|src/api/queryClient.ts|Catalog data changes hourly; refetching on every tab focus cost a request burst for nothing.|Order queries keep refetchOnWindowFocus true|what-changed|src/api/queryClient.ts|src/api/queryClient.ts",
			"decision|Cart state in a Zustand store persisted to localStorage|the cart survives reloads before login|The cart is client state until checkout, so it does not belong in the query cache; Zustand with the persist middleware is 1 KB and needs no provider.|Storage key storefront-cart; Cart items hold sku, quantity and the price seen|why-it-exists|src/features/cart/cartStore.ts|src/features/cart/cartStore.ts",
		},
		sum: [6]string{"Choose data fetching and cart state management", "TanStack Query, Redux Toolkit, Zustand", "Server state and client state need different tools", "TanStack Query with tuned defaults, Zustand cart persisted to localStorage", "", ""},
	},
	{key: "web05", start: "2026-04-06 11:10",
		prompts: []string{
			"Build the checkout address form with validation. UK customers can't submit, it says postcode invalid",
		},
		obs: []string{
			"feature|Checkout form with react-hook-form and zod schemas|field errors shown on blur|The form uses zodResolver; the address schema is built per country, and the submit button is disabled while the payment intent is created.|Schemas in src/features/checkout/schema.ts|how-it-works|src/features/checkout/CheckoutForm.tsx|src/features/checkout/CheckoutForm.tsx, src/features/checkout/schema.ts",
			"bugfix|UK postcodes rejected: the postal code regex was the US ZIP pattern for every country|per-country postal code patterns|The zod schema used /^\\d{5}(-\\d{4})?$/ regardless of the selected country, so 'SW1A 1AA' failed. Postal codes are now validated per country from a table (GB, DE, FR, US, NL, ...), uppercased and trimmed first.|Countries without a pattern accept any non-empty value|problem-solution|src/features/checkout/schema.ts|src/features/checkout/schema.ts, src/features/checkout/postalCodes.ts",
		},
		sum: [6]string{"Checkout address form with validation; UK postcodes rejected", "react-hook-form with zod, postal code formats", "A single US pattern rejects every other country", "Checkout form, per-country postal code validation", "", ""},
	},
	{key: "web06", start: "2026-04-14 16:00",
		prompts: []string{
			"Production build calls http://localhost:8080 for the API. The env var works in dev. Why?",
		},
		obs: []string{
			"bugfix|Production build used the fallback API URL: env var was named API_BASE_URL without the VITE_ prefix|Vite only exposes VITE_* variables to client code|import.meta.env.API_BASE_URL is undefined in every build because Vite strips unprefixed variables; dev worked only because of the hard-coded fallback. The variable is now VITE_API_BASE_URL and the client throws at startup if it is missing.|Vite replaces import.meta.env.VITE_* at build time, so changing it needs a rebuild|problem-solution, gotcha|src/api/client.ts|src/api/client.ts, src/env.ts",
			"change|API base URL configured in .env.production and .env.staging as VITE_API_BASE_URL|src/env.ts validates env with zod at startup|All client-side configuration is read once in src/env.ts; CI passes the mode with vite build --mode staging.|Never put secrets in VITE_ variables: they are public in the bundle|what-changed|.env.production|.env.production, .env.staging, src/env.ts",
		},
		sum: [6]string{"Production build calls localhost for the API", "Vite's env handling and the client's fallback", "Only VITE_-prefixed variables reach client code, at build time", "VITE_API_BASE_URL in .env files, env validated in src/env.ts", "", ""},
	},
	{key: "web07", start: "2026-04-28 10:30",
		prompts: []string{
			"Add German and French. Some German pages show raw keys like checkout.summary.total",
		},
		obs: []string{
			"feature|i18n with react-i18next, translations in public/locales/<lng>/<ns>.json|namespaces loaded lazily per route|i18next-http-backend loads common.json up front and checkout.json only when the checkout route mounts.|Language detected from the URL prefix, then navigator.language|how-it-works|src/i18n/index.ts|src/i18n/index.ts, public/locales/de/common.json, public/locales/fr/common.json",
			"bugfix|German pages showed raw translation keys: missing keys had no fallback language|fallbackLng: 'en' and a CI check for missing keys|de/checkout.json lacked keys added after the translation export, and without fallbackLng i18next printed the key. Missing keys now fall back to English and i18next-parser fails CI when a locale misses a key.|Translators receive the diff from i18next-parser output|problem-solution|src/i18n/index.ts|src/i18n/index.ts, .github/workflows/ci.yml, i18next-parser.config.js",
		},
		sum: [6]string{"German and French translations; raw keys on German pages", "react-i18next setup, namespaces, fallbacks", "Without fallbackLng a missing key renders as the key itself", "Lazy-loaded namespaces, English fallback, CI check for missing keys", "", ""},
	},
	{key: "web08", start: "2026-05-07 15:20",
		prompts: []string{
			"Dark mode with a toggle. And the page flashes white before going dark, fix that",
		},
		obs: []string{
			"feature|Dark mode via Tailwind's class strategy and a ThemeProvider|system preference by default, choice persisted|ThemeProvider reads localStorage theme or prefers-color-scheme and toggles the dark class on <html>.|darkMode: 'class' in tailwind.config.ts|how-it-works|src/theme/ThemeProvider.tsx|src/theme/ThemeProvider.tsx, tailwind.config.ts",
			"bugfix|Flash of light theme on load: the dark class was set only after React mounted|tiny inline script in index.html sets the class before paint|The ThemeProvider ran after the bundle loaded, so the first paint was light. A 5-line inline script in index.html reads the saved theme and sets the class synchronously.|The inline script must be allowed by the CSP (see the CSP work)|problem-solution, gotcha|index.html|index.html",
		},
		sum: [6]string{"Dark mode with a toggle, without a white flash", "Tailwind dark mode strategies, first paint timing", "Theme must be applied before React mounts to avoid a flash", "ThemeProvider with persisted choice, inline pre-paint script", "", ""},
	},
	{key: "web09", start: "2026-05-19 09:50",
		prompts: []string{
			"Security wants a strict Content-Security-Policy. Where do we even set headers for the static site?",
		},
		obs: []string{
			"change|Strict CSP set in the CloudFront response headers policy, managed in Terraform|infra/cloudfront/headers.tf|Headers for the static site are set by CloudFront, not by the app: default-src 'self'; script-src 'self' plus the theme script's hash; connect-src the API and Sentry; frame-src js.stripe.com.|Also HSTS, X-Content-Type-Options, Referrer-Policy strict-origin-when-cross-origin|what-changed, how-it-works|infra/cloudfront/headers.tf|infra/cloudfront/headers.tf",
			"bugfix|CSP blocked the inline theme script and Stripe Elements|sha256 hash for the script, js.stripe.com allowed|After enabling the policy, dark mode flashed again (inline script refused) and the payment form was blank. The script's sha256 hash is in script-src, computed by a Vite plugin at build; Stripe's domains are in script-src and frame-src.|The hash changes if the script changes: the build fails if headers.tf is stale|problem-solution, gotcha|index.html, infra/cloudfront/headers.tf|infra/cloudfront/headers.tf, vite.config.ts",
			"discovery|CSP violations reported to Sentry with report-to|report-only first for a week|We ran Content-Security-Policy-Report-Only for a week and fixed the reported violations before enforcing.|Sentry security endpoint as report-uri|how-it-works|src/lib/sentry.ts|infra/cloudfront/headers.tf",
		},
		sum: [6]string{"A strict Content-Security-Policy for the static site", "Where headers are set (CloudFront), what the app loads from other origins", "Inline scripts need a hash; Stripe Elements needs its domains in script-src and frame-src", "CSP in the CloudFront headers policy with a build-computed hash, report-only rollout", "", ""},
	},
	{key: "web10", start: "2026-06-01 13:00",
		prompts: []string{
			"Set up Playwright end-to-end tests for checkout. The first version is flaky in CI",
		},
		obs: []string{
			"feature|Playwright e2e suite for browse, cart and checkout|runs against a preview build with a mocked API|playwright.config.ts starts vite preview and an msw-based mock API; tests run in Chromium and WebKit.|baseURL http://localhost:4173|how-it-works|playwright.config.ts|playwright.config.ts, e2e/checkout.spec.ts",
			"bugfix|Flaky checkout e2e test: clicked the pay button during the drawer's slide-in animation|wait for the element to be stable, not for networkidle|The test waited for networkidle and then clicked, but the cart drawer was still animating so the click hit the overlay. It now uses expect(button).toBeEnabled() and Playwright's actionability checks; animations are disabled in tests via prefers-reduced-motion.|networkidle is discouraged by Playwright docs|problem-solution|e2e/checkout.spec.ts|e2e/checkout.spec.ts, playwright.config.ts",
			"change|Playwright retries 2 in CI and traces on first retry|retries: process.env.CI ? 2 : 0|A retried pass is reported as flaky in the HTML report, so flakiness stays visible.|trace: 'on-first-retry'|what-changed|playwright.config.ts|playwright.config.ts",
		},
		sum: [6]string{"Playwright e2e tests for checkout, flaky in CI", "Playwright configuration, actionability, animations", "Waiting for networkidle does not wait for animations", "e2e suite, reduced motion in tests, retries with traces in CI", "", ""},
	},
	{key: "web11", start: "2026-06-15 10:40",
		prompts: []string{
			"Add Sentry. Stack traces from production are minified garbage",
		},
		obs: []string{
			"feature|Sentry error tracking with React error boundaries|Sentry.init in src/lib/sentry.ts|Errors and unhandled rejections go to Sentry with the user id (never email) and the release.|tracesSampleRate 0.05|how-it-works|src/main.tsx|src/lib/sentry.ts, src/main.tsx",
			"bugfix|Minified stack traces in Sentry: source maps uploaded under a different release name|release set from the same GIT_SHA in the plugin and in Sentry.init|@sentry/vite-plugin uploaded maps as release 'storefront@<sha>' while the app reported 'storefront-web@<version>'. Both now use VITE_RELEASE set by CI to the commit SHA, and maps are deleted from the bundle after upload.|sourcemap: 'hidden' in vite.config.ts build options|problem-solution, gotcha|vite.config.ts|vite.config.ts, src/lib/sentry.ts, .github/workflows/deploy.yml",
		},
		sum: [6]string{"Sentry error tracking with readable stack traces", "Sentry's Vite plugin, release naming, source maps", "Release names must match between upload and runtime", "Sentry init, hidden source maps uploaded per commit SHA", "", ""},
	},
	{key: "web12", start: "2026-06-29 14:10",
		prompts: []string{
			"The category page with 2000 products is super slow to scroll and LCP is 3 seconds. Speed it up",
		},
		obs: []string{
			"change|Product grid virtualized with @tanstack/react-virtual|only visible rows rendered|Rendering 2000 ProductCard components took 900 ms; the virtualized grid renders about 40 at a time.|Row height measured dynamically|what-changed|src/features/catalog/ProductGrid.tsx|src/features/catalog/ProductGrid.tsx",
			"change|Product images lazy-loaded with srcset and explicit sizes|loading=lazy except the first row, fetchpriority=high on the hero|The hero image was loaded lazily by mistake, delaying LCP. Now the first row is eager with fetchpriority high and the rest lazy; the image CDN serves 320/640/960 widths.|LCP 3.1 s to 1.6 s on the throttled profile|what-changed, problem-solution|src/components/ProductImage.tsx|src/components/ProductImage.tsx",
		},
		sum: [6]string{"Speed up the large category page and its LCP", "Rendering cost of the grid, image loading", "Lazy-loading the LCP image delays it", "Virtualized grid, eager hero image with srcset; LCP 1.6 s", "", ""},
	},
	{key: "web13", start: "2026-07-13 11:25",
		prompts: []string{
			"We want to roll out the new checkout to 10% of users. Feature flags: LaunchDarkly or something self-hosted?",
		},
		obs: []string{
			"decision|Self-hosted Unleash for feature flags instead of LaunchDarkly|cost and data stays in our cloud|LaunchDarkly priced per monthly active user would cost more than the hosting of Unleash for our traffic; we only need boolean flags and percentage rollouts.|Unleash proxy at flags.example.shop; SDK @unleash/proxy-client-react|why-it-exists, trade-off|src/flags/flags.ts|src/flags/flags.ts",
			"feature|new-checkout flag with a 10 percent gradual rollout by user id|useFlag('new-checkout') in routes|The route table picks NewCheckout or Checkout; stickiness by user id so a user keeps the same checkout.|Anonymous users are bucketed by a random id in sessionStorage|how-it-works|src/routes.tsx|src/routes.tsx, src/flags/flags.ts",
		},
		sum: [6]string{"Roll out the new checkout to 10% of users with feature flags", "LaunchDarkly versus self-hosted Unleash", "Per-MAU pricing is expensive for a shop; we need only simple flags", "Unleash flags, new-checkout at 10% sticky by user", "", ""},
	},
	{key: "web14", start: "2026-07-27 09:05",
		prompts: []string{
			"Search box shows results for what I typed earlier, they flicker and then the wrong list stays",
		},
		obs: []string{
			"bugfix|Search results out of order: a slow earlier request finished after the latest one|query key per term and AbortSignal passed to fetch|The SearchBox kept results in useState and set them in each fetch's then(); when 'sho' returned after 'shoes', the stale list won. Search now uses useQuery with the debounced term in the query key and passes TanStack Query's signal to fetch, so superseded requests are aborted and ignored.|Debounce 250 ms with useDebouncedValue|problem-solution|src/features/search/SearchBox.tsx|src/features/search/SearchBox.tsx, src/api/search.ts",
			"change|Search keeps the previous results while the next ones load|placeholderData: keepPreviousData|Instead of flashing an empty list between keystrokes.|Loading indicator in the input|what-changed|src/features/search/SearchBox.tsx|src/features/search/SearchBox.tsx",
		},
		sum: [6]string{"Search box shows stale results for an earlier term", "Race between overlapping requests in the SearchBox", "The last response to arrive is not the latest request", "useQuery keyed by the debounced term with abort signals, previous results kept while loading", "", ""},
	},
	{key: "web15", start: "2026-08-10 13:50",
		prompts: []string{
			"Accessibility audit: fix focus in modals, icon buttons without labels, and the contrast of the sale badge",
		},
		obs: []string{
			"bugfix|Modals did not trap focus and Escape did nothing|Radix Dialog replaces the hand-written modal|Keyboard users tabbed behind the open size picker. The modal is now @radix-ui/react-dialog, which traps focus, restores it on close, and closes on Escape.|All five modals migrated|problem-solution|src/components/Modal.tsx|src/components/Modal.tsx",
			"change|aria-label on every icon-only button; axe checks in Playwright|@axe-core/playwright on key pages|The cart, wishlist and close buttons had no accessible name. An e2e test runs axe on home, category, product and checkout and fails on serious violations.|eslint-plugin-jsx-a11y also enabled|what-changed|e2e/a11y.spec.ts|src/components/IconButton.tsx, e2e/a11y.spec.ts",
			"change|Sale badge color darkened to pass WCAG AA contrast|red-600 on white instead of red-400|Contrast was 2.9:1, now 4.8:1.|tailwind theme color sale|what-changed|tailwind.config.ts|tailwind.config.ts",
		},
		sum: [6]string{"Accessibility fixes from the audit", "Modal focus handling, button labels, color contrast", "Hand-written modals rarely get focus right", "Radix Dialog modals, labelled icon buttons, axe in e2e, AA contrast for the badge", "", ""},
	},
	{key: "web16", start: "2026-08-24 10:15",
		prompts: []string{
			"Users say their cart is empty after they log in. They added stuff as guests",
		},
		obs: []string{
			"bugfix|Guest cart lost on login: the persisted store key changed with the user id|carts merged on login into the server cart|cartStore used storage key storefront-cart-<userId>, so after login the store rehydrated an empty cart for the new key. On login the guest cart is now merged into the user's server-side cart (quantities summed, prices refreshed) and the guest key is cleared.|Merge endpoint POST /cart/merge on the API|problem-solution|src/features/cart/cartStore.ts, src/auth/AuthProvider.tsx|src/features/cart/cartStore.ts, src/auth/AuthProvider.tsx",
			"discovery|Logged-in carts are stored server-side so they follow the user across devices|the Zustand store is a cache for them|After login the cart store syncs with /cart; for guests it stays local only.|Conflicts resolved by last write per sku|how-it-works|src/features/cart/cartStore.ts|",
		},
		sum: [6]string{"Guest cart is empty after logging in", "Cart persistence keys, login flow", "Keying persisted state by user id loses the guest's state at login", "Guest cart merged into the server cart on login", "", ""},
	},
	{key: "web17", start: "2026-09-07 15:40",
		prompts: []string{
			"Upgrade to React 19 and Vite 6. What breaks?",
		},
		obs: []string{
			"change|Upgraded to React 19 and Vite 6|ref as a prop, forwardRef removed from our components|React 19 passes ref as a normal prop, so the 14 forwardRef wrappers were removed with the official codemod. Vite 6 needed no config changes apart from the Sentry plugin bump.|@types/react 19; react-dom/test-utils act moved to react|what-changed|package.json|package.json, pnpm-lock.yaml, src/components/Input.tsx",
			"discovery|react-hook-form 7.54 needed for React 19 peer dependency|older versions warn about element.ref|Reading element.ref is deprecated in React 19; react-hook-form fixed it in 7.54.|pnpm why react-hook-form|gotcha|package.json|package.json",
		},
		sum: [6]string{"Upgrade React and Vite", "React 19 breaking changes, library peer deps", "ref is a prop in React 19; forwardRef is not needed", "React 19, Vite 6, forwardRef removed, react-hook-form bumped", "", ""},
	},
	{key: "web18", start: "2026-09-21 11:00",
		prompts: []string{
			"Wire the checkout to Stripe PaymentElement. After 3D Secure the customer lands on a 404",
		},
		obs: []string{
			"feature|Checkout payment step with Stripe PaymentElement|client secret from POST /v1/payment-intents|The PaymentElement renders cards, iDEAL and PayPal; confirmPayment is called with the order's return URL.|@stripe/react-stripe-js; publishable key from VITE_STRIPE_PUBLISHABLE_KEY|how-it-works|src/features/checkout/PaymentStep.tsx|src/features/checkout/PaymentStep.tsx",
			"bugfix|404 after 3D Secure: return_url pointed to /checkout/complete which the router did not define|route added and return_url built from window.location.origin|Stripe redirects to return_url after the bank's challenge. The route was named /order/complete in routes.tsx. The route now exists, reads payment_intent_client_secret from the query and shows the status; CloudFront already rewrites unknown paths to index.html.|Test with Stripe's 4000 0027 6000 3184 card|problem-solution|src/routes.tsx|src/routes.tsx, src/features/checkout/PaymentStep.tsx, src/features/checkout/Complete.tsx",
		},
		sum: [6]string{"Stripe PaymentElement in checkout; 404 after 3D Secure", "confirmPayment, return_url, the router", "Stripe returns to return_url after authentication; the route must exist", "PaymentElement checkout step, completion route for redirects", "", ""},
	},
	{key: "web19", start: "2026-10-12 14:30",
		prompts: []string{
			"The main bundle is 780 KB. Cut it down",
		},
		obs: []string{
			"change|Route-based code splitting with React.lazy|checkout, account and admin in their own chunks|The initial bundle is now home, catalog and product only; other routes load on navigation with a Suspense fallback.|Main bundle 780 KB to 310 KB (gzip 98 KB)|what-changed|src/routes.tsx|src/routes.tsx",
			"decision|Replaced moment.js with date-fns|moment with locales was 230 KB|moment is in maintenance mode and not tree-shakeable; date-fns imports only the functions used and its locales are per import.|Dates formatted through src/lib/dates.ts|why-it-exists, trade-off|package.json|src/lib/dates.ts, package.json",
			"discovery|rollup-plugin-visualizer report shows lodash pulled in by a date picker|treemap in dist/stats.html|The date picker imported all of lodash; replaced with react-day-picker.|Run pnpm build --mode analyze|how-it-works|vite.config.ts|vite.config.ts",
		},
		sum: [6]string{"Cut the 780 KB main bundle", "Bundle treemap, routes, heavy dependencies", "moment and a lodash-importing date picker were a third of the bundle", "Route code splitting, date-fns, react-day-picker; main bundle 310 KB", "", ""},
	},
	{key: "web20", start: "2026-11-02 09:45",
		prompts: []string{
			"After the API moved to api.example.shop every request fails with a CORS error and the refresh cookie isn't sent",
		},
		obs: []string{
			"bugfix|CORS errors after the API moved to its own domain: credentials and cookie attributes|refresh cookie needs SameSite=None; Secure across sites, and the API must allow the origin|With the API on api.example.shop, the browser treated /auth/refresh as cross-site: the SameSite=Strict cookie was not sent and the response lacked Access-Control-Allow-Credentials. The API now returns the exact origin with credentials allowed, and the cookie is SameSite=Lax on the registrable domain example.shop (same site, so Lax suffices).|shop.example.shop and api.example.shop share the site example.shop|problem-solution, gotcha|src/api/client.ts|src/api/client.ts",
			"change|Dev server proxies /api to the local API in vite.config.ts|server.proxy avoids CORS locally|Local development calls /api, which Vite proxies to http://localhost:8080, so the dev setup matches production's same-site cookies.|VITE_API_BASE_URL=/api in .env.development|what-changed|vite.config.ts|vite.config.ts, .env.development",
		},
		sum: [6]string{"CORS errors and a missing refresh cookie after the API moved to api.example.shop", "Cross-origin requests with credentials, SameSite cookie rules", "Same site is the registrable domain; Strict cookies are not sent cross-site", "Credentialed CORS on the API, cookie SameSite=Lax on example.shop, Vite dev proxy", "", ""},
	},
	{key: "web21", start: "2026-11-16 10:20",
		prompts: []string{
			"When the session really expires users just see errors. Show a message and send them to login, then back",
		},
		obs: []string{
			"feature|Session expired toast and redirect to /login?next=<path>|shown when refresh fails, not on every 401|When the refresh call itself returns 401 (refresh token expired after 30 days or revoked), apiFetch emits sessionExpired; AuthProvider shows a toast and navigates to login with the current path, which login returns to.|next must be a same-origin path (open redirect check)|how-it-works|src/auth/AuthProvider.tsx|src/auth/AuthProvider.tsx, src/api/client.ts, src/pages/Login.tsx",
			"change|Idle timeout: log out after 30 minutes without interaction on shared devices|opt-in via 'This is a shared computer' at login|The idle timer resets on pointer and key events and is off unless the user ticks the checkbox.|Timer in src/auth/idle.ts|what-changed|src/auth/AuthProvider.tsx|src/auth/idle.ts, src/pages/Login.tsx",
		},
		sum: [6]string{"Tell users when their session expired and bring them back after login", "Refresh failure handling, redirects after login", "Only a failed refresh means the session is over", "Session expired toast, login with next, opt-in idle timeout", "", ""},
	},
}}
