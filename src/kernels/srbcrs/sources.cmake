# Sources of the SRBCRS family (host planning, later kernels and dispatch glue), relative to src/.
set(SPX_SRBCRS_SOURCES planning/srbcrs_layout.cpp)
