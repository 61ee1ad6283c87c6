/* Links against an installed libspx and calls it: version, status names, a host-side tool. */
#include <stdio.h>

#include "spx/spx.h"

int main(void) {
  int version = 0;
  if (spxGetVersion(&version) != SPX_STATUS_SUCCESS || version != SPX_VERSION) {
    fprintf(stderr, "version mismatch: library %d, header %d\n", version, SPX_VERSION);
    return 1;
  }
  const float dense[6] = {1, 0, 2, 0, 0, 3};
  int ok = 0;
  if (spxHostCheckUniform(2, 3, dense, 3, SPX_ORDER_ROW, 2, &ok) != SPX_STATUS_SUCCESS || !ok) {
    fprintf(stderr, "spxHostCheckUniform failed: %s\n", spxGetLastErrorMessage());
    return 1;
  }
  printf("consumer: libspx %d linked; %s\n", version, spxGetStatusName(SPX_STATUS_INVALID_VALUE));
  return 0;
}
