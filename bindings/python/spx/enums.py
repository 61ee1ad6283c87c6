"""The enums of ``include/spx/spx_types.h`` as :class:`enum.IntEnum`, same values.

Names drop the C prefix: ``SPX_STATUS_INVALID_VALUE`` is ``Status.INVALID_VALUE``,
``SPX_R_16F`` is ``DataType.R_16F``. The CI test ``tests/test_enums.py`` parses the C header and
fails when a value here differs from it or an enumerator is missing.
"""
from enum import IntEnum


class Status(IntEnum):
    """spxStatus_t: what every libspx call returns (non-success ones become exceptions)."""

    SUCCESS = 0
    NOT_INITIALIZED = 1
    ALLOC_FAILED = 2
    INVALID_VALUE = 3
    ARCH_MISMATCH = 4
    EXECUTION_FAILED = 5
    INTERNAL_ERROR = 6
    NOT_SUPPORTED = 7
    IO_ERROR = 8


class DataType(IntEnum):
    """spxDataType_t: element types (4-bit types pack two elements per byte, low nibble first)."""

    R_32F = 0
    R_16F = 1
    R_16BF = 2
    R_8I = 3
    R_4I = 4
    R_16I = 5
    R_32I = 6
    R_8U = 7
    R_4U = 8

    @property
    def bits(self) -> int:
        return _BITS[self]

    @property
    def is_float(self) -> bool:
        return self in (DataType.R_32F, DataType.R_16F, DataType.R_16BF)


_BITS = {
    DataType.R_32F: 32, DataType.R_16F: 16, DataType.R_16BF: 16, DataType.R_8I: 8,
    DataType.R_4I: 4, DataType.R_16I: 16, DataType.R_32I: 32, DataType.R_8U: 8, DataType.R_4U: 4,
}


class Order(IntEnum):
    """spxOrder_t: storage order of a dense matrix."""

    ROW = 0
    COL = 1


class Format(IntEnum):
    """spxFormat_t: sparse storage formats."""

    CSR = 0
    BCRS = 1
    NM = 2
    ELL = 3


class PointerMode(IntEnum):
    """spxPointerMode_t: where alpha and beta live."""

    HOST = 0
    DEVICE = 1


class SpMMAlg(IntEnum):
    """spxSpMMAlg_t: kernel family (DEFAULT lets the plan choose; the others force one)."""

    DEFAULT = 0
    NM = 1
    ELL = 2
    SRBCRS = 3
    SPTC_REORDER = 4
    FALLBACK = 5
    DENSE = 6


#: spxSDDMMAlg_t is the same enum in C.
SDDMMAlg = SpMMAlg


class PlanOption(IntEnum):
    """spxPlanOption_t: settings of analyze (see :class:`spx.PlanOptions`)."""

    AUTOTUNE = 0
    SPARSE_VALUES_LAYOUT = 1
    DENSE_ROUTE = 2
    ALLOW_TF32 = 3
    MAX_N = 4
    EPILOGUE_ACTIVATION = 5  #: an Activation: the fused epilogue's activation (SpMM)
    EPILOGUE_BIAS = 6  #: 0 / 1: the fused epilogue adds a per-row fp32 bias (Plan.set_epilogue)
    EPILOGUE_SCALE = 7  #: 0 / 1: the fused epilogue scales each row by an fp32 scale


class Activation(IntEnum):
    """spxActivation_t: the fused SpMM epilogue's activation (PlanOption.EPILOGUE_ACTIVATION),
    computed in fp32: C = act(alpha * scale[i] * (A @ B)[i, j] + bias[i]) + beta * C[i, j]."""

    NONE = 0
    RELU = 1
    GELU_TANH = 2  #: torch.nn.functional.gelu(u, approximate="tanh")
    SILU = 3


class DenseRoute(IntEnum):
    """spxDenseRoute_t: when an SpMM plan runs as dense cuBLAS (PlanOption.DENSE_ROUTE)."""

    AUTO = 0
    NEVER = 1
    ALWAYS = 2
    AUTO_EVERY_N = 3  #: AUTO at every prepared n, making the dense copy of A where one needs it


class ValuesLayout(IntEnum):
    """spxValuesLayout_t: order of a BCRS / CSR values array (PlanOption.SPARSE_VALUES_LAYOUT)."""

    NATIVE = 0
    SRBCRS = 1
