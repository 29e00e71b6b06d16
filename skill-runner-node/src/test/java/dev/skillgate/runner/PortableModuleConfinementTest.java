package dev.skillgate.runner;

/** Module confinement through the portable supervisor: the same refusals, then the missing cleanup proof. */
class PortableModuleConfinementTest extends ModuleConfinementContract {

    @Override
    protected ProcessSupervisor supervisor() {
        return PortableSupervisor.create();
    }

    @Override
    protected int raceRounds() {
        return 10;
    }
}
