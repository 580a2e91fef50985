"""An independent checker for strategy trees and optimality certificates.

Written from the definitions in the docs (answering function, NYT hard-mode
rule, Bound / LB_i / V_i, MinTotal), it imports nothing from the prover:
not pipeline.search, pipeline.feedback, pipeline.stages, nor the answering
function or constraints of pipeline.games.  It reads the word lists from the
Game object it is given and builds every response code with its own kernel.
"""

from pipeline.compiled.cache import use_kernel_cache

use_kernel_cache()  # before any kernel of this room is defined
