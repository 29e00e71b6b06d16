/**
 * Runnable host examples for Skillgate: a console host with terminal approval, a host that
 * trusts selected revisions, and a host with the web approval console. Not published. Nothing here is a sandbox.
 */
module dev.skillgate.examples {
    requires dev.skillgate.engine;
    requires dev.skillgate.console;

    exports dev.skillgate.examples;
}
