import { Buffer } from 'node:buffer'

/** A token's validation: the principal it names, its scope, and when it expires (epoch ms). */
export interface ValidatedToken {
  principal: string
  scope: string[]
  expiresAtMs: number
}

/**
 * A token refused: `status` is RFC 7628's error status the client is sent
 * (invalid_token, or insufficient_scope with the scope wanted); `reason` is
 * for the broker's own log. Neither holds the token.
 */
export class TokenRefused extends Error {
  constructor(
    readonly reason: string,
    readonly status: 'invalid_token' | 'insufficient_scope' = 'invalid_token',
    readonly scope: string | null = null,
  ) {
    super(reason)
  }

  /** The server's error challenge (RFC 7628 section 3.2.2), byte for byte as Kafka's OAuthBearerSaslServer writes it. */
  get challenge(): string {
    return this.scope === null ? `{"status":"${this.status}"}` : `{"status":"${this.status}", "scope":"${this.scope}"}`
  }
}

/** Checks one bearer token; throws TokenRefused. */
export type TokenValidator = (token: string) => Promise<ValidatedToken>

/** Kafka's unsecured validator options (OAuthBearerLoginModule's unsecuredValidator* JAAS options). */
export interface UnsecuredValidatorOptions {
  /** unsecuredValidatorPrincipalClaimName. Default `sub`. */
  principalClaimName?: string
  /** unsecuredValidatorScopeClaimName. Default `scope`. */
  scopeClaimName?: string
  /** unsecuredValidatorRequiredScope: scope values a token must all have. Default none. */
  requiredScope?: string[]
  /** unsecuredValidatorAllowableClockSkewMs. Default 0. */
  allowableClockSkewMs?: number
}

/** Kafka's validator of signed tokens (OAuthBearerValidatorCallbackHandler and its sasl.oauthbearer.* settings). */
export interface JwksValidatorOptions {
  /** sasl.oauthbearer.jwks.endpoint.url: https:, http: or file: (a JWKS file read at each refresh). */
  jwksUrl: string
  /** sasl.oauthbearer.expected.audience: one of these must be in `aud`. Default: not checked. */
  expectedAudience?: string[]
  /** sasl.oauthbearer.expected.issuer: `iss` must equal it. Default: not checked. */
  expectedIssuer?: string
  /** sasl.oauthbearer.clock.skew.seconds. Default 30. */
  clockSkewSeconds?: number
  /** sasl.oauthbearer.sub.claim.name. Default `sub`. */
  subClaimName?: string
  /** sasl.oauthbearer.scope.claim.name. Default `scope`. */
  scopeClaimName?: string
  /** sasl.oauthbearer.jwks.endpoint.refresh.ms. Default 3600000. */
  refreshMs?: number
}

/** How the broker checks OAUTHBEARER tokens: Kafka's unsecured validator (its default, for tests) or signed tokens from a JWKS. */
export type OauthbearerOptions = { unsecured: UnsecuredValidatorOptions } | { jwks: JwksValidatorOptions }

function decodePart(part: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
  } catch {
    throw new TokenRefused(`the token's ${what} is not base64url JSON`)
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new TokenRefused(`the token's ${what} is not a JSON object`)
  return value as Record<string, unknown>
}

/** A claim holding a number of seconds, as epoch ms; undefined when absent and optional. */
function secondsClaim(claims: Record<string, unknown>, name: string, required: boolean): number | undefined {
  const v = claims[name]
  if (v === undefined) {
    if (required) throw new TokenRefused(`required claim missing: ${name}`)
    return undefined
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new TokenRefused(`the ${name} claim is not a number`)
  return v * 1000
}

/** A scope claim: a space-separated string or a list of strings (Kafka takes both). */
function scopeClaim(claims: Record<string, unknown>, name: string): string[] {
  const v = claims[name]
  if (v === undefined) return []
  if (typeof v === 'string') return v.split(' ').filter(Boolean)
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[]
  throw new TokenRefused(`the ${name} claim is neither a string nor a list of strings`)
}

function principalClaim(claims: Record<string, unknown>, name: string): string {
  const v = claims[name]
  if (typeof v !== 'string' || !v.trim()) throw new TokenRefused(`no principal name in the ${name} claim`)
  return v
}

/**
 * Kafka's default server-side validator (OAuthBearerUnsecuredValidatorCallbackHandler):
 * an unsigned JWS (alg none, empty signature) whose claims say who and until
 * when. For tests and development only: anyone can write such a token.
 */
export function unsecuredValidator(options: UnsecuredValidatorOptions = {}, now = Date.now): TokenValidator {
  const principalName = options.principalClaimName ?? 'sub'
  const scopeName = options.scopeClaimName ?? 'scope'
  const required = options.requiredScope ?? []
  const skew = options.allowableClockSkewMs ?? 0
  return async (token) => {
    const parts = token.split('.')
    if (parts.length !== 3) throw new TokenRefused(`an unsecured JWS has 3 parts, not ${parts.length}`)
    if (parts[2] !== '') throw new TokenRefused('an unsecured JWS has an empty signature')
    const header = decodePart(parts[0], 'header')
    if (header.alg !== 'none') throw new TokenRefused("an unsecured JWS has 'none' as its alg header")
    const claims = decodePart(parts[1], 'claims')
    const principal = principalClaim(claims, principalName)
    const expiresAtMs = secondsClaim(claims, 'exp', true)!
    const issuedAtMs = secondsClaim(claims, 'iat', false)
    const at = now()
    if (issuedAtMs !== undefined && issuedAtMs > expiresAtMs) throw new TokenRefused('the token was issued after it expires')
    if (at - skew >= expiresAtMs) throw new TokenRefused('the token has expired')
    if (issuedAtMs !== undefined && at + skew < issuedAtMs) throw new TokenRefused('the token is issued in the future')
    const scope = scopeClaim(claims, scopeName)
    const missing = required.filter((s) => !scope.includes(s))
    // The scope named is the whole required list, as Kafka prints it (a Java list).
    if (missing.length)
      throw new TokenRefused(`the token's scope lacks ${missing.join(' ')}`, 'insufficient_scope', `[${required.join(', ')}]`)
    return { principal, scope, expiresAtMs }
  }
}

/**
 * Kafka's validator of signed tokens (OAuthBearerValidatorCallbackHandler):
 * the signature by a key of the JWKS (refreshed every refreshMs, and when a
 * token names a key id not seen yet), `exp` and `iat` required, issuer and
 * audience when configured, the principal from the sub claim. The JWS work
 * is the `jose` library's, loaded on first use.
 */
export function jwksValidator(options: JwksValidatorOptions): TokenValidator {
  const url = new URL(options.jwksUrl)
  const subName = options.subClaimName ?? 'sub'
  const scopeName = options.scopeClaimName ?? 'scope'
  const refreshMs = options.refreshMs ?? 3_600_000
  let keys: Promise<Parameters<typeof import('jose').jwtVerify>[1]> | null = null
  const keySet = async () => {
    const jose = await import('jose')
    if (url.protocol !== 'file:') return jose.createRemoteJWKSet(url, { cacheMaxAge: refreshMs, cooldownDuration: 30_000 })
    const { readFile } = await import('node:fs/promises')
    return jose.createLocalJWKSet(JSON.parse(await readFile(url, 'utf8')))
  }
  let loadedAt = 0
  return async (token) => {
    const { jwtVerify, errors } = await import('jose')
    // A file JWKS is read again each refreshMs; a remote one refreshes itself (and on an unknown key id).
    if (!keys || (url.protocol === 'file:' && Date.now() - loadedAt >= refreshMs)) {
      keys = keySet()
      loadedAt = Date.now()
      keys.catch(() => (keys = null))
    }
    let payload: Record<string, unknown>
    try {
      ;({ payload } = await jwtVerify(token, await keys, {
        issuer: options.expectedIssuer,
        audience: options.expectedAudience,
        clockTolerance: options.clockSkewSeconds ?? 30,
        requiredClaims: ['exp', 'iat'],
      }))
    } catch (err) {
      if (err instanceof errors.JOSEError) throw new TokenRefused(`the token was refused: ${err.message}`)
      throw err
    }
    return {
      principal: principalClaim(payload, subName),
      scope: scopeClaim(payload, scopeName),
      expiresAtMs: (payload.exp as number) * 1000,
    }
  }
}

const SEP = '\u0001'

/** The client's initial response (RFC 7628 section 3.1): the GS2 header's authzid, the bearer token, the extensions. */
export function readInitialResponse(message: string): { authzid: string; token: string; extensions: Map<string, string> } {
  const m = /^n,(?:a=([^,]*))?,\u0001([\s\S]*)\u0001\u0001$/.exec(message)
  if (!m) throw new TokenRefused('malformed OAUTHBEARER initial response')
  const extensions = new Map<string, string>()
  let token: string | null = null
  for (const pair of m[2].split(SEP)) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new TokenRefused('malformed key/value pair in the OAUTHBEARER initial response')
    const key = pair.slice(0, eq)
    const value = pair.slice(eq + 1)
    if (key === 'auth') {
      const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(value)
      if (!bearer) throw new TokenRefused('the auth value is not "Bearer <token>"')
      token = bearer[1]
    } else if (!/^[A-Za-z]+$/.test(key)) throw new TokenRefused(`malformed extension name in the OAUTHBEARER initial response`)
    else extensions.set(key, value)
  }
  if (token === null) throw new TokenRefused('no auth=Bearer in the OAUTHBEARER initial response')
  return { authzid: m[1] ?? '', token, extensions }
}
