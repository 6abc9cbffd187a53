/*
 * registry.c - the replacement policies cachet knows, one line each.
 */
#include <string.h>

#include "../compiler.h"
#include "../policy.h"

static const ct_policy_ops *const policies[] = {
    &ct_policy_lru,
    &ct_policy_plru,
    &ct_policy_fifo,
    &ct_policy_random,
    &ct_policy_srrip,
    &ct_policy_brrip,
    &ct_policy_lfu,
    &ct_policy_opt,
};

const ct_policy_ops *ct_policy_at(size_t i)
{
    return i < CT_ARRAY_LEN(policies) ? policies[i] : NULL;
}

const char *ct_policy_name_at(size_t i)
{
    return i < CT_ARRAY_LEN(policies) ? policies[i]->name : NULL;
}

int ct_policy_find(const char *name)
{
    for (size_t i = 0; i < CT_ARRAY_LEN(policies); i++)
        if (strcmp(policies[i]->name, name) == 0)
            return (int)i;
    return -1;
}
