# Sources of the NM family (kernels, host layout, dispatch glue), relative to src/.
set(SPX_NM_SOURCES)
