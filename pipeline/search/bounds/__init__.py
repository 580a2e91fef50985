"""Lower bounds on MinTotal (Bound, LB_i, V_i, hard mode), the funnel's levels and the closure of an opener's classes."""
