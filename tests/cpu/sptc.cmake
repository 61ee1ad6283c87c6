# CPU tests of the SPTC family host planning (label cpu). Empty until the planning lands.
