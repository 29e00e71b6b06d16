package dev.skillgate.console;

import org.apiguardian.api.API;

/**
 * The stable codes the console's HTTP API answers a refused request with, each with its HTTP status.
 *
 * <p>A refused request changes nothing. The codes say which check refused it; they never echo the
 * submitted token, cookie or body.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum ConsoleCode {
    /** The peer is not a loopback address. */
    NOT_LOOPBACK(403),
    /** The {@code Host} header is missing or names another host or port (DNS rebinding). */
    HOST_REFUSED(403),
    /** The {@code Origin} (or {@code Sec-Fetch-Site}) says the request comes from another site. */
    ORIGIN_REFUSED(403),
    /** No valid per-start session: the launch token or the session cookie is missing or wrong. */
    TOKEN_REQUIRED(401),
    /** A state change without the per-start CSRF token in {@code X-CSRF-Token}. */
    CSRF_REQUIRED(403),
    /** The method is not allowed on this route (state changes are POST only). */
    METHOD_NOT_ALLOWED(405),
    /** A state change whose body is not {@code application/json}. */
    UNSUPPORTED_MEDIA_TYPE(415),
    /** The request body is larger than the console accepts. */
    BODY_TOO_LARGE(413),
    /** No such route or request. */
    NOT_FOUND(404),
    /** The body is not what the route accepts. */
    INVALID_REQUEST(400),
    /** The host locked the console: no decision and no setting is accepted. */
    LOCKED(423),
    /** The request is no longer pending (decided, expired, stale or cancelled): nothing was decided. */
    DECISION_REFUSED(409),
    /** The settings change was refused by the admin (the body carries its diagnostics). */
    SETTING_REFUSED(422);

    private final int httpStatus;

    ConsoleCode(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    /** The HTTP status this code is answered with. */
    public int httpStatus() {
        return httpStatus;
    }
}
