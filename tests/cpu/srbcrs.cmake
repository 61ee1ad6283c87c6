# CPU tests of the SRBCRS family host planning (label cpu). Empty until the planning lands.
