# Sources of the dense family (the dense cuBLAS route), relative to src/.
set(SPX_DENSE_SOURCES
  families/dense/family.cpp
  families/dense/plan/gemm.cpp
  families/dense/plan/roofline.cpp
  families/dense/kernels/cublas.cpp
  families/dense/kernels/densify.cu
  families/dense/kernels/epilogue.cu)
