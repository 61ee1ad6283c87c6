# SPX_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer on every host object the build
# compiles (C, C++, and the host side of .cu files through nvcc's host compiler), and on every
# link. Undefined behaviour aborts (-fno-sanitize-recover) so a test fails instead of printing.
# Device code is untouched. scripts/test-sanitizers.sh builds and runs the CPU suite this way.
option(SPX_SANITIZE "Build with -fsanitize=address,undefined (host code; GCC)" OFF)

# spx_sanitize_foreign_test(<test>): for a test that loads libspx.so into a program not built
# here (python3, cmake, cc): with SPX_SANITIZE the ASan runtime must come first in such a
# process, so it is preloaded, with libstdc++ (ASan's __cxa_throw interceptor finds the real
# one only if libstdc++ is loaded at start; python3 loads it later, with libspx.so), and the
# program's own leaks (not ours) are not reported.
function(spx_sanitize_foreign_test test)
  if(SPX_SANITIZE)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
                 "LD_PRELOAD=${SPX_ASAN_RUNTIME}:${SPX_LIBSTDCXX}"
                 "ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0")
  endif()
endfunction()

if(SPX_SANITIZE)
  # GCC links its shared ASan runtime into libspx.so; Clang would leave the runtime's symbols
  # undefined there (it needs -shared-libasan), which the --no-undefined link refuses.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "SPX_SANITIZE needs GCC (found ${CMAKE_CXX_COMPILER_ID})")
  endif()
  set(SPX_SANITIZE_FLAGS -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer
                         -fno-sanitize-recover=undefined)
  # nvcc splits an -Xcompiler value at commas: pass each flag on its own.
  set(SPX_SANITIZE_CUDA_FLAGS)
  foreach(flag IN LISTS SPX_SANITIZE_FLAGS)
    list(APPEND SPX_SANITIZE_CUDA_FLAGS "-Xcompiler=${flag}")
  endforeach()
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:C,CXX>:${SPX_SANITIZE_FLAGS}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:${SPX_SANITIZE_CUDA_FLAGS}>")
  add_link_options(
    "$<$<LINK_LANGUAGE:C,CXX>:-fsanitize=address;-fsanitize=undefined>"
    "$<$<LINK_LANGUAGE:CUDA>:-Xcompiler=-fsanitize=address;-Xcompiler=-fsanitize=undefined>")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE SPX_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                  OUTPUT_VARIABLE SPX_LIBSTDCXX OUTPUT_STRIP_TRAILING_WHITESPACE)
  message(STATUS "libspx: host code built with ASan + UBSan (SPX_SANITIZE; runtime ${SPX_ASAN_RUNTIME})")
endif()
