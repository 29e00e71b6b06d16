/**
 * Runnable host examples for Skillgate: a console host with terminal approval, and a host that
 * trusts selected revisions. Not published. Nothing here is a sandbox.
 */
module dev.skillgate.examples {
    requires dev.skillgate.engine;

    exports dev.skillgate.examples;
}
