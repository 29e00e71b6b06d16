package dev.skillgate.model;

import java.net.IDN;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A network destination a contract declares: a credential-free {@code https} origin,
 * {@code https://host[:port]}, stored in canonical form (ASCII/punycode host, lowercase, default
 * port omitted).
 *
 * <p>Rejected: other schemes, userinfo, a path (other than nothing), query or fragment, IP-literal
 * zone ids, empty hosts, hosts that fail IDNA conversion, ports outside 1–65535. A declared
 * destination is information for the human and the agent context; Skillgate does not filter
 * network traffic.
 *
 * @param origin canonical origin text
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record NetworkDestination(String origin) {

    /** Longest origin text accepted. */
    public static final int MAX_LENGTH = 300;

    public NetworkDestination {
        Objects.requireNonNull(origin, "origin");
        String canonical = canonicalize(origin);
        if (!canonical.equals(origin)) {
            throw invalid("destination is not in canonical form; use NetworkDestination.parse");
        }
    }

    /** Parses and canonicalises an origin such as {@code https://Bücher.example:443}. */
    public static NetworkDestination parse(String text) {
        return new NetworkDestination(canonicalize(Objects.requireNonNull(text, "text")));
    }

    /** The ASCII host name. */
    public String host() {
        URI uri = URI.create(origin);
        return uri.getHost();
    }

    /** The port, or 443 when none is written. */
    public int port() {
        int port = URI.create(origin).getPort();
        return port < 0 ? 443 : port;
    }

    @Override
    public String toString() {
        return origin;
    }

    private static String canonicalize(String text) {
        if (text.isEmpty() || text.length() > MAX_LENGTH) {
            throw invalid("destination must be 1-" + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= 0x20 || c == 0x7f || c == '\\' || c == '%') {
                throw invalid("destination contains a space, control, backslash or percent character");
            }
        }
        int schemeEnd = text.indexOf("://");
        if (schemeEnd < 0 || !text.substring(0, schemeEnd).equalsIgnoreCase("https")) {
            throw invalid("destination must be an https:// origin");
        }
        String authority = text.substring(schemeEnd + 3);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        if (authority.isEmpty()
                || authority.indexOf('/') >= 0
                || authority.indexOf('?') >= 0
                || authority.indexOf('#') >= 0) {
            throw invalid("destination must be an origin: no path, query or fragment");
        }
        if (authority.indexOf('@') >= 0) {
            throw invalid("destination must not contain credentials (userinfo)");
        }
        String host;
        String portText = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw invalid("unterminated IPv6 literal");
            }
            host = authority.substring(0, close + 1).toLowerCase(Locale.ROOT);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw invalid("invalid text after an IPv6 literal");
                }
                portText = after.substring(1);
            }
            if (host.indexOf('%') >= 0) {
                throw invalid("zone ids are not allowed");
            }
        } else {
            int colon = authority.lastIndexOf(':');
            String rawHost = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? null : authority.substring(colon + 1);
            if (rawHost.isEmpty()) {
                throw invalid("destination has an empty host");
            }
            try {
                host = IDN.toASCII(rawHost, 0).toLowerCase(Locale.ROOT);
            } catch (IllegalArgumentException e) {
                throw invalid("destination host is not a valid internationalised domain name");
            }
            if (host.isEmpty() || host.startsWith(".") || host.contains("..")) {
                throw invalid("destination host is malformed");
            }
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) {
                    throw invalid("destination host has an invalid character");
                }
            }
            if (host.endsWith(".")) {
                host = host.substring(0, host.length() - 1);
            }
        }
        int port = 443;
        if (portText != null) {
            if (portText.isEmpty() || portText.length() > 5 || !portText.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw invalid("destination port must be 1-65535");
            }
            port = Integer.parseInt(portText);
            if (port < 1 || port > 65535) {
                throw invalid("destination port must be 1-65535");
            }
        }
        String canonical = "https://" + host + (port == 443 ? "" : ":" + port);
        try {
            URI uri = new URI(canonical);
            if (uri.getHost() == null) {
                throw invalid("destination host is malformed");
            }
        } catch (URISyntaxException e) {
            throw invalid("destination is not a valid URI");
        }
        return canonical;
    }

    private static InvalidValueException invalid(String message) {
        return new InvalidValueException(ErrorCode.CONTRACT_DESTINATION_INVALID, message);
    }
}
