// Which architecture libspx's device code runs as on the current device (host side).
#pragma once

namespace spx::kernels {

/// The virtual architecture the loaded device code was compiled for, x 10 + minor (80, 90, ...):
/// 90 on an H100 when the library holds sm_90 code (the default architectures 80;90), but 80
/// when it was built for sm_80 only and the driver compiles that PTX for the H100. The sm_90
/// paths (tensor and bulk copies, programmatic dependent launch's griddepcontrol) exist only in
/// code compiled for 90 or later: the families take them when this is >= 90, not when the
/// device's compute capability is. 0 when the query fails.
int device_code_arch();

}  // namespace spx::kernels
