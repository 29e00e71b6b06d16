package dev.skillgate.console.internal;

/** Where one request shown in the console stands; only {@link #PENDING} accepts a decision. */
enum RequestState {
    PENDING,
    APPROVED,
    DENIED,
    EXPIRED,
    STALE,
    CANCELLED
}
