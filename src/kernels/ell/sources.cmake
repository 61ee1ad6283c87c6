# Sources of the ELL family (kernels, host layout, dispatch glue), relative to src/.
set(SPX_ELL_SOURCES)
