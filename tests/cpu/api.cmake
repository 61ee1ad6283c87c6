# C API without a GPU (label `cpu`): status names, version, the thread-local error message,
# spxCreate's answer by the devices present, descriptors of every format over fake device
# pointers, and the argument checks that need no handle. Also run on the GPU machine.
# test_api_cpu_epilogue: the fused SpMM epilogue's options and plan calls without a device.
foreach(t test_api_cpu test_api_cpu_epilogue)
  add_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.cpp)
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  # cudart only to ask how many devices there are (to know what spxCreate must answer).
  target_link_libraries(${t} PRIVATE spx Catch2::Catch2 CUDA::cudart)
  target_compile_features(${t} PRIVATE cxx_std_17)
  # Catch2's main: the CPU suites' shared object (host.cmake) when there is one, else our own.
  if(TARGET spx_catch_main_cpu)
    target_link_libraries(${t} PRIVATE spx_catch_main_cpu)
  else()
    target_compile_definitions(${t} PRIVATE CATCH_CONFIG_MAIN)
  endif()
  target_compile_options(${t} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
  catch_discover_tests(${t} TEST_PREFIX "${t}: " PROPERTIES LABELS cpu)
endforeach()
